// The query-parameter readers of the list routes (src/http/query.ts), called on plain objects as Fastify
// hands them over: each refusal is a DomainError InvalidQuery naming its parameter. No server needed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DomainError } from '../../src/errors.js';
import {
  badParameter,
  checkWindow,
  enumOf,
  isoTime,
  KeysetQuery,
  oneOf,
  pageOf,
  pageSize,
  PAGE_SIZE,
  parseIsoMicros,
  refuseUnknown,
  single,
} from '../../src/http/query.js';

/** Asserts that `read` throws InvalidQuery about `parameter` with `detail`, and nothing else. */
function refusedAs(read: () => unknown, parameter: string, detail: string): void {
  assert.throws(read, (error: unknown) => {
    assert.ok(error instanceof DomainError, String(error));
    assert.deepEqual(
      { code: error.code, title: error.title, fields: error.fields, message: error.message, detail: error.detail },
      { code: 'InvalidQuery', title: 'Invalid query parameter', fields: [{ path: parameter, detail }], message: `${parameter}: ${detail}`, detail: undefined },
    );
    return true;
  });
}

const PAGE_SIZE_DETAIL = 'page_size must be a whole number from 1 to 100';
const ISO_DETAIL = (name: string) => `${name} must be an ISO 8601 date (2026-01-31) or time with offset (2026-01-31T12:00:00Z)`;

describe('badParameter', () => {
  test('is an InvalidQuery DomainError with one field: the parameter and why', () => {
    refusedAs(
      () => {
        throw badParameter('cursor', 'cursor is not a cursor of this list');
      },
      'cursor',
      'cursor is not a cursor of this list',
    );
  });
});

describe('refuseUnknown', () => {
  test('known parameters pass, whatever their values', () => {
    assert.doesNotThrow(() => refuseUnknown({ page_size: '5', tag: ['a', 'b'] }, ['page_size', 'tag', 'cursor']));
    assert.doesNotThrow(() => refuseUnknown({}, []));
  });

  test('an unknown (misspelt) parameter is refused, naming it and the known ones', () => {
    refusedAs(
      () => refuseUnknown({ page_size: '5', tga: 'x' }, ['page_size', 'tag']),
      'tga',
      'tga is not a query parameter of this operation; known: page_size, tag',
    );
  });

  test('an operation without parameters says so', () => {
    refusedAs(() => refuseUnknown({ q: '' }, []), 'q', 'q is not a query parameter of this operation; known: none');
  });

  test('names are compared exactly: case matters', () => {
    refusedAs(() => refuseUnknown({ Page_Size: '5' }, ['page_size']), 'Page_Size', 'Page_Size is not a query parameter of this operation; known: page_size');
  });
});

describe('single', () => {
  test('a parameter given once comes back as its text; an absent one as undefined; an empty one as ""', () => {
    assert.equal(single({ tag: 'tag_1' }, 'tag'), 'tag_1');
    assert.equal(single({}, 'tag'), undefined);
    assert.equal(single({ tag: '' }, 'tag'), '');
  });

  test('a repeated parameter (an array) is refused', () => {
    refusedAs(() => single({ tag: ['a', 'b'] }, 'tag'), 'tag', 'tag must be given once');
  });

  test('a value that is not text (a parsed object) is refused as not given once', () => {
    refusedAs(() => single({ tag: { a: '1' } }, 'tag'), 'tag', 'tag must be given once');
  });

  test('a NUL anywhere in the value is refused', () => {
    refusedAs(() => single({ q: 'ab\u0000c' }, 'q'), 'q', 'q must not contain NUL');
  });
});

describe('oneOf', () => {
  const REASONS = ['ok', 'replayed'] as const;
  test('a value of the set comes back; absent is undefined', () => {
    assert.equal(oneOf({ reason: 'replayed' }, 'reason', REASONS), 'replayed');
    assert.equal(oneOf({}, 'reason', REASONS), undefined);
  });

  test('a value outside the set (or in another case, or empty) is refused, listing the set', () => {
    for (const value of ['OK', 'bad_cmac', '']) refusedAs(() => oneOf({ reason: value }, 'reason', REASONS), 'reason', 'reason must be one of ok, replayed');
  });

  test('a repeated value is refused as not given once', () => {
    refusedAs(() => oneOf({ reason: ['ok', 'ok'] }, 'reason', REASONS), 'reason', 'reason must be given once');
  });
});

describe('pageSize', () => {
  test('absent: the default, 25', () => {
    assert.equal(pageSize({}), 25);
    assert.deepEqual(PAGE_SIZE, { min: 1, max: 100, default: 25 });
  });

  test('1 to 100 are taken as numbers', () => {
    assert.deepEqual(
      ['1', '2', '50', '99', '100'].map((raw) => pageSize({ page_size: raw })),
      [1, 2, 50, 99, 100],
    );
  });

  test('leading zeros within four digits are read as the number they write', () => {
    assert.deepEqual([pageSize({ page_size: '007' }), pageSize({ page_size: '0100' })], [7, 100]);
  });

  test('out of range or not a whole number is refused, not clamped', () => {
    for (const raw of ['0', '101', '-1', '2.5', 'ten', '', ' 5', '5 ', '+5', '1e2', '0x10', '00001', '10000', '0000'])
      refusedAs(() => pageSize({ page_size: raw }), 'page_size', PAGE_SIZE_DETAIL);
  });

  test('a repeated page_size is refused as not given once', () => {
    refusedAs(() => pageSize({ page_size: ['5', '5'] }), 'page_size', 'page_size must be given once');
  });
});

describe('isoTime and parseIsoMicros', () => {
  test('a date alone is its midnight UTC, in microseconds', () => {
    assert.equal(parseIsoMicros('2026-01-31'), Date.UTC(2026, 0, 31) * 1000);
    assert.equal(isoTime({ since: '1970-01-01' }, 'since'), 0);
  });

  test('a time with Z or an offset, with fractions down to the microsecond', () => {
    const base = Date.UTC(2026, 0, 31, 12, 0, 0) * 1000;
    assert.equal(parseIsoMicros('2026-01-31T12:00:00Z'), base);
    assert.equal(parseIsoMicros('2026-01-31T14:00:00+02:00'), base);
    assert.equal(parseIsoMicros('2026-01-31T07:30:00-04:30'), base);
    assert.equal(parseIsoMicros('2026-01-31T12:00:00.5Z'), base + 500_000);
    assert.equal(parseIsoMicros('2026-01-31T12:00:00.123456Z'), base + 123_456);
    assert.equal(parseIsoMicros('2026-01-31T12:00:00.000001Z'), base + 1);
  });

  test('a leap day exists in a leap year only', () => {
    assert.equal(parseIsoMicros('2024-02-29'), Date.UTC(2024, 1, 29) * 1000);
    assert.equal(parseIsoMicros('2026-02-29'), null);
  });

  test('what is not such a time is null', () => {
    for (const raw of [
      '',
      'yesterday',
      '2026-02-30',
      '2026-13-01',
      '2026-00-10',
      '2026-04-31',
      '2026-01-31T12:00:00',
      '2026-01-31T12:00Z',
      '2026-01-31 12:00:00Z',
      '2026-01-31T24:00:00Z',
      '2026-01-31T12:60:00Z',
      '2026-01-31T12:00:60Z',
      '2026-01-31T12:00:00.1234567Z',
      '2026-01-31T12:00:00+0200',
      '1969-12-31',
      '26-01-31',
      '1780000000',
    ])
      assert.equal(parseIsoMicros(raw), null, raw);
  });

  test('isoTime: absent is undefined; a bad value is refused naming the parameter', () => {
    assert.equal(isoTime({}, 'since'), undefined);
    refusedAs(() => isoTime({ until: '2026-02-30' }, 'until'), 'until', ISO_DETAIL('until'));
    refusedAs(() => isoTime({ since: 'now' }, 'since'), 'since', ISO_DETAIL('since'));
    refusedAs(() => isoTime({ since: ['2026-01-01', '2026-01-02'] }, 'since'), 'since', 'since must be given once');
  });
});

describe('checkWindow', () => {
  test('since before or equal to until, or either missing, is a window', () => {
    assert.doesNotThrow(() => checkWindow(1, 2));
    assert.doesNotThrow(() => checkWindow(2, 2));
    assert.doesNotThrow(() => checkWindow(undefined, 2));
    assert.doesNotThrow(() => checkWindow(2, undefined));
    assert.doesNotThrow(() => checkWindow(undefined, undefined));
  });

  test('until before since is refused on until', () => {
    refusedAs(() => checkWindow(2, 1), 'until', 'until must not be before since');
    refusedAs(() => checkWindow(0, -1), 'until', 'until must not be before since');
  });
});

describe('pageOf', () => {
  test('size + 1 rows: the first size rows, and more follow', () => {
    assert.deepEqual(pageOf([1, 2, 3, 4], 3), { rows: [1, 2, 3], more: true });
  });

  test('size rows or fewer: all of them, the last page', () => {
    assert.deepEqual(pageOf([1, 2, 3], 3), { rows: [1, 2, 3], more: false });
    assert.deepEqual(pageOf([], 3), { rows: [], more: false });
  });
});

describe('OpenAPI parts', () => {
  test('enumOf is a string schema of the values; KeysetQuery describes page_size 1..100, default 25', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(enumOf(['a', 'b']))), { type: 'string', enum: ['a', 'b'] });
    assert.deepEqual(
      {
        type: KeysetQuery.page_size.type,
        minimum: KeysetQuery.page_size.minimum,
        maximum: KeysetQuery.page_size.maximum,
        default: KeysetQuery.page_size.default,
      },
      { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    );
  });
});
