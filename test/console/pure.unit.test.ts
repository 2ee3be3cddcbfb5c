// The console's parts that run without a browser: CSV import parsing, path routing, the API error line
// and its errors per field, the reasons list, the signals' texts and how a verdict reads
// (packages/console/src). Pages and hooks need a DOM and are tested in Chromium instead.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeProblem, modeOfKey, must, ProblemError, problemOf, problemsAt } from '../../packages/console/src/api.js';
import { parseTagCsv, TAG_COLUMNS } from '../../packages/console/src/csv.js';
import { REASON_COLORS, REASON_LABELS, REASONS } from '../../packages/console/src/reasons.js';
import { BASE, href, match, navigate, queryOf } from '../../packages/console/src/router.js';
import { isSignal, SIGNAL_ACTIONS, SIGNAL_LABELS, SIGNAL_MEANINGS, SIGNALS, type Signal } from '../../packages/console/src/signals.js';
import { sealOpened, verdictOf, type JudgedScan } from '../../packages/console/src/verdict.js';

describe('parseTagCsv', () => {
  test('a url column alone: each row takes the default protocol; lines count from the header as 1', () => {
    assert.deepEqual(parseTagCsv('url\nhttps://a.example/1\nhttps://a.example/2\n', 'ntag424'), {
      rows: [
        { line: 2, attributes: { protocol: 'ntag424', url: 'https://a.example/1' } },
        { line: 3, attributes: { protocol: 'ntag424', url: 'https://a.example/2' } },
      ],
    });
  });

  test('every column: protocol given or defaulted when empty, comment null when empty, session_duration a number', () => {
    const csv = ['protocol,url,comment,session_duration', 'ntag223,https://a.example/1,Bottle 1,300', ',https://a.example/2,,'].join('\n');
    assert.deepEqual(parseTagCsv(csv, 'ntag424'), {
      rows: [
        { line: 2, attributes: { protocol: 'ntag223', url: 'https://a.example/1', comment: 'Bottle 1', session_duration: 300 } },
        { line: 3, attributes: { protocol: 'ntag424', url: 'https://a.example/2', comment: null } },
      ],
    });
  });

  test('session_duration: whole numbers (negative too) become numbers; other text is kept for the server to refuse', () => {
    const csv = 'url,session_duration\nu1,-5\nu2,3.5\nu3,ten\nu4, 60 ';
    const parsed = parseTagCsv(csv, 'p');
    assert.ok('rows' in parsed);
    assert.deepEqual(
      parsed.rows.map((r) => r.attributes.session_duration),
      [-5, '3.5', 'ten', 60],
    );
  });

  test('column names are trimmed and case-insensitive, in any order; values are trimmed', () => {
    assert.deepEqual(parseTagCsv(' Comment , URL \n  note  ,  https://a.example/1  ', 'p'), {
      rows: [{ line: 2, attributes: { protocol: 'p', comment: 'note', url: 'https://a.example/1' } }],
    });
  });

  test('RFC 4180 quoting: commas, doubled quotes and line breaks inside quotes; the next row’s line accounts for them', () => {
    const csv = 'url,comment\n"https://a.example/1?a=1,2","He said ""hi"", twice"\nhttps://a.example/2,"two\nlines"\nhttps://a.example/3,';
    assert.deepEqual(parseTagCsv(csv, 'p'), {
      rows: [
        { line: 2, attributes: { protocol: 'p', url: 'https://a.example/1?a=1,2', comment: 'He said "hi", twice' } },
        { line: 3, attributes: { protocol: 'p', url: 'https://a.example/2', comment: 'two\nlines' } },
        { line: 5, attributes: { protocol: 'p', url: 'https://a.example/3', comment: null } },
      ],
    });
  });

  test('a quote inside an unquoted field is an ordinary character', () => {
    assert.deepEqual(parseTagCsv('url,comment\nu1,5" screen', 'p'), { rows: [{ line: 2, attributes: { protocol: 'p', url: 'u1', comment: '5" screen' } }] });
  });

  test('CRLF line ends, a byte order mark and blank lines (kept in the line count) are all read', () => {
    const csv = '\uFEFFurl\r\n\r\nhttps://a.example/1\r\n   \r\nhttps://a.example/2\r\n';
    assert.deepEqual(parseTagCsv(csv, 'p'), {
      rows: [
        { line: 3, attributes: { protocol: 'p', url: 'https://a.example/1' } },
        { line: 5, attributes: { protocol: 'p', url: 'https://a.example/2' } },
      ],
    });
  });

  test('a lone CR ends a line too', () => {
    assert.deepEqual(parseTagCsv('url\ru1\ru2', 'p'), {
      rows: [
        { line: 2, attributes: { protocol: 'p', url: 'u1' } },
        { line: 3, attributes: { protocol: 'p', url: 'u2' } },
      ],
    });
  });

  test('a short row leaves its missing columns empty; extra fields beyond the header are ignored', () => {
    assert.deepEqual(parseTagCsv('url,comment,session_duration\nu1\nu2,c,10,extra', 'p'), {
      rows: [
        { line: 2, attributes: { protocol: 'p', url: 'u1', comment: null } },
        { line: 3, attributes: { protocol: 'p', url: 'u2', comment: 'c', session_duration: 10 } },
      ],
    });
  });

  test('an empty file (or only blank lines and a BOM) is refused, saying what the first line must hold', () => {
    const error = 'The CSV is empty: its first line must name the columns (url, and optionally protocol, comment, session_duration).';
    for (const text of ['', '\n\n', '\uFEFF', '  \r\n']) assert.deepEqual(parseTagCsv(text, 'p'), { error }, JSON.stringify(text));
  });

  test('unknown columns are refused, each named (lower-cased), with the known ones', () => {
    assert.deepEqual(parseTagCsv('url,Colour,uid\nu1,red,04', 'p'), {
      error: 'Unknown column "colour", "uid": the columns are protocol, url, comment, session_duration.',
    });
  });

  test('a header without url is refused', () => {
    assert.deepEqual(parseTagCsv('protocol,comment\nntag424,x', 'p'), { error: 'The first line must name the columns, and one of them must be url.' });
  });

  test('a header without rows is refused', () => {
    assert.deepEqual(parseTagCsv('url,comment\n\n', 'p'), { error: 'The CSV names its columns but has no rows.' });
  });

  test('the columns are protocol, url, comment, session_duration', () => {
    assert.deepEqual(TAG_COLUMNS, ['protocol', 'url', 'comment', 'session_duration']);
  });
});

describe('router: paths under /console', () => {
  test('href puts a console path under /console', () => {
    assert.equal(BASE, '/console');
    assert.equal(href('/'), '/console/');
    assert.equal(href('/tags?status=created'), '/console/tags?status=created');
  });

  test('match: a literal path, and :params decoded', () => {
    assert.deepEqual(match('/tags', '/tags'), {});
    assert.deepEqual(match('/tags/:id', '/tags/tag_1'), { id: 'tag_1' });
    assert.deepEqual(match('/webhooks/:id/deliveries/:delivery', '/webhooks/whk_1/deliveries/a%2Fb%20c'), { id: 'whk_1', delivery: 'a/b c' });
  });

  test('match: trailing slashes on the path are ignored', () => {
    assert.deepEqual(match('/tags/:id', '/tags/tag_1//'), { id: 'tag_1' });
    assert.deepEqual(match('/tags', '/tags/'), {});
  });

  test('match: another path, a longer or shorter one, is null', () => {
    assert.equal(match('/tags/:id', '/webhooks/whk_1'), null);
    assert.equal(match('/tags/:id', '/tags'), null);
    assert.equal(match('/tags/:id', '/tags/tag_1/links'), null);
    assert.equal(match('/tags', '/Tags'), null);
  });

  test('queryOf: only the values set, in their order, escaped; nothing set is an empty string', () => {
    assert.equal(queryOf({ status: 'created', tag: undefined, q: '', since: '2026-01-01T00:00:00Z' }), '?status=created&since=2026-01-01T00%3A00%3A00Z');
    assert.equal(queryOf({ q: 'a b&c' }), '?q=a+b%26c');
    assert.equal(queryOf({ q: '', tag: undefined }), '');
    assert.equal(queryOf({}), '');
  });

  test('navigate pushes (or replaces) a history entry under /console and announces the change', () => {
    const calls: string[] = [];
    const names = ['history', 'dispatchEvent'] as const;
    const saved = names.map((name) => Object.getOwnPropertyDescriptor(globalThis, name));
    const stubs = {
      history: {
        pushState: (_state: unknown, _title: string, url: string) => calls.push(`push ${url}`),
        replaceState: (_state: unknown, _title: string, url: string) => calls.push(`replace ${url}`),
      },
      dispatchEvent: (event: Event) => calls.push(`event ${event.type}`),
    };
    try {
      for (const name of names) Object.defineProperty(globalThis, name, { value: stubs[name], configurable: true, writable: true });
      navigate('/tags/tag_1');
      navigate('/scans?reason=ok', { replace: true });
    } finally {
      names.forEach((name, i) => (saved[i] ? Object.defineProperty(globalThis, name, saved[i]) : delete (globalThis as Record<string, unknown>)[name]));
    }
    assert.deepEqual(calls, ['push /console/tags/tag_1', 'event console:navigate', 'replace /console/scans?reason=ok', 'event console:navigate']);
    assert.equal('history' in globalThis, saved[0] !== undefined, 'the global is restored');
  });
});

describe('api: problems as one line', () => {
  const response = (status: number) => new Response(null, { status });

  test('a JSON:API error document: its status and error objects; the line is status, title and detail', () => {
    const problem = problemOf({ errors: [{ status: '422', title: 'Validation failed', detail: 'url must be https' }, { title: 'second' }] }, response(422));
    assert.deepEqual(problem, { status: 422, errors: [{ status: '422', title: 'Validation failed', detail: 'url must be https' }, { title: 'second' }] });
    assert.equal(describeProblem(problem), '422 Validation failed: url must be https');
  });

  test('a text body is the title; an empty or missing one is "No answer"; no response is status 0, and the line has no status', () => {
    assert.deepEqual(problemOf('Too Many Requests', response(429)), { status: 429, errors: [{ title: 'Too Many Requests' }] });
    assert.deepEqual(problemOf('', response(502)), { status: 502, errors: [{ title: 'No answer' }] });
    assert.deepEqual(problemOf(undefined, undefined), { status: 0, errors: [{ title: 'No answer' }] });
    assert.deepEqual(problemOf({ errors: 'not a list' }, undefined), { status: 0, errors: [{ title: 'No answer' }] });
    assert.equal(describeProblem(problemOf(undefined, undefined)), 'No answer');
  });

  test('an error object without title or detail reads "Request failed"; a title alone has no colon', () => {
    assert.equal(describeProblem({ status: 500, errors: [{}] }), '500 Request failed');
    assert.equal(describeProblem({ status: 404, errors: [] }), '404 Request failed');
    assert.equal(describeProblem({ status: 404, errors: [{ title: 'Not Found' }] }), '404 Not Found');
  });

  test('must: the data of a success; a ProblemError carrying the problem otherwise', async () => {
    assert.deepEqual(await must(Promise.resolve({ data: { id: 'tag_1' }, response: response(200) })), { id: 'tag_1' });
    const refusal = await must(Promise.resolve({ error: { errors: [{ title: 'Not Found' }] }, response: response(404) })).catch((e: unknown) => e);
    assert.ok(refusal instanceof ProblemError);
    assert.equal(refusal.message, '404 Not Found');
    assert.deepEqual(refusal.problem, { status: 404, errors: [{ title: 'Not Found' }] });
    const empty = await must(Promise.resolve({ response: response(204) })).catch((e: unknown) => e);
    assert.ok(empty instanceof ProblemError);
    assert.equal(empty.message, '204 No answer', 'a success without data is a problem too');
  });

  test('problemsAt: each error under the prefix by the name after it; the prefix itself, other pointers and no pointer under ""', () => {
    const prefix = '/data/attributes/signal_thresholds';
    const problem = {
      status: 422,
      errors: [
        { title: 'Invalid attribute', detail: 'counter_gap must be an integer from 1 to 16777215', source: { pointer: `${prefix}/counter_gap` } },
        { title: 'Invalid attribute', detail: 'replay_burst must be an integer from 1 to 10000', source: { pointer: `${prefix}/replay_burst` } },
        { title: 'Invalid attribute', detail: 'second line', source: { pointer: `${prefix}/replay_burst/deeper` } },
        { title: 'Invalid attribute', detail: 'must be an object', source: { pointer: prefix } },
        { title: 'Invalid attribute', detail: 'name cannot be changed', source: { pointer: '/data/attributes/name' } },
        { title: 'Invalid attribute', detail: 'a prefix of the name is not the prefix', source: { pointer: `${prefix}_x/counter_gap` } },
        { title: 'Bad Request' },
        { source: { parameter: 'page_size' } },
      ],
    };
    assert.deepEqual(problemsAt(problem, prefix), {
      counter_gap: ['counter_gap must be an integer from 1 to 16777215'],
      replay_burst: ['replay_burst must be an integer from 1 to 10000', 'second line'],
      '': ['must be an object', 'name cannot be changed', 'a prefix of the name is not the prefix', 'Bad Request', 'Refused'],
    });
    assert.deepEqual(problemsAt({ status: 422, errors: [] }, prefix), {});
  });

  test('modeOfKey: tp_live_ keys act in production, anything else in the sandbox', () => {
    assert.deepEqual(['tp_live_abc', 'tp_sandbox_abc', 'tp_livex', 'TP_LIVE_abc', ''].map(modeOfKey), [
      'production',
      'sandbox',
      'sandbox',
      'sandbox',
      'sandbox',
    ]);
  });
});

describe('reasons', () => {
  test('the five reasons in the console’s order, each with a label and a colour', () => {
    assert.deepEqual(REASONS, ['ok', 'replayed', 'bad_cmac', 'bad_picc_data', 'uid_mismatch']);
    assert.deepEqual(Object.keys(REASON_LABELS), [...REASONS]);
    assert.deepEqual(Object.keys(REASON_COLORS), [...REASONS]);
    assert.equal(new Set(Object.values(REASON_COLORS)).size, REASONS.length, 'no two reasons share a colour');
    assert.equal(REASON_LABELS.ok, 'Genuine');
  });
});

describe('signals', () => {
  test('the five signals in the API’s order, each with a label, a meaning and an action', () => {
    assert.deepEqual(SIGNALS, ['counter_gap', 'country_jump', 'replay_burst', 'tamper_opened', 'tamper_open']);
    for (const texts of [SIGNAL_LABELS, SIGNAL_MEANINGS, SIGNAL_ACTIONS]) assert.deepEqual(Object.keys(texts), [...SIGNALS]);
    assert.deepEqual(Object.values(SIGNAL_LABELS), ['Counter gap', 'Country jump', 'Replay burst', 'Seal opened', 'Seal open']);
    assert.equal(new Set(Object.values(SIGNAL_LABELS)).size, SIGNALS.length, 'no two badges read alike');
    assert.equal(new Set(Object.values(SIGNAL_MEANINGS)).size, SIGNALS.length, 'each signal means something of its own');
  });

  test('each meaning and action is one sentence-like line: a capital, a full stop at the end, no line break', () => {
    for (const signal of SIGNALS)
      for (const line of [SIGNAL_MEANINGS[signal], SIGNAL_ACTIONS[signal]]) {
        assert.match(line, /^[A-Z].*\.$/, `${signal}: ${line}`);
        assert.doesNotMatch(line, /\n/);
      }
  });

  test('each signal says what happened and the step to take', () => {
    assert.match(SIGNAL_MEANINGS.counter_gap, /harvested/);
    assert.match(SIGNAL_ACTIONS.counter_gap, /counterfeit/);
    assert.match(SIGNAL_ACTIONS.counter_gap, /scans of this tag elsewhere/);
    assert.match(SIGNAL_MEANINGS.country_jump, /another country/);
    assert.match(SIGNAL_ACTIONS.country_jump, /sold into that region/);
    assert.match(SIGNAL_MEANINGS.replay_burst, /refused scans/);
    assert.match(SIGNAL_ACTIONS.replay_burst, /addresses and countries of the refused scans/);
    assert.match(SIGNAL_MEANINGS.tamper_opened, /seal of this item has been opened/);
    assert.equal(SIGNAL_ACTIONS.tamper_opened, 'The item is no longer sealed: do not treat it as new.');
    assert.equal(SIGNAL_ACTIONS.tamper_open, SIGNAL_ACTIONS.tamper_opened);
  });

  test('isSignal: exactly the five names, case and all', () => {
    assert.deepEqual(SIGNALS.map(isSignal), [true, true, true, true, true]);
    assert.deepEqual(['', 'flagged', 'Counter_gap', 'tamper', 'counter_gap ', 'tamper_open,'].map(isSignal), [false, false, false, false, false, false]);
  });
});

describe('verdict', () => {
  const scan = (over: Partial<JudgedScan>): JudgedScan => ({ genuine: true, reason: 'ok', signals: [], tamper: null, ...over });
  const open = { permanent: 'open', current: 'open' } as const;
  const closed = { permanent: 'closed', current: 'closed' } as const;

  test('genuine and nothing opened: plain genuine, ok', () => {
    assert.deepEqual(verdictOf(scan({})), { label: 'genuine', tone: 'ok' });
    assert.deepEqual(verdictOf(scan({ tamper: closed })), { label: 'genuine', tone: 'ok' });
    assert.deepEqual(verdictOf(scan({ tamper: { permanent: 'not_enabled', current: 'not_enabled' } })), { label: 'genuine', tone: 'ok' });
  });

  test('signals other than the seal leave a genuine scan genuine (they are shown beside it)', () => {
    for (const signals of [['counter_gap'], ['country_jump'], ['counter_gap', 'country_jump']] as Signal[][])
      assert.deepEqual(verdictOf(scan({ signals })), { label: 'genuine', tone: 'ok' }, signals.join());
  });

  test('an opened seal, by either signal or by the chip’s permanent status alone, is never plain genuine', () => {
    const opened: JudgedScan[] = [
      scan({ signals: ['tamper_opened'], tamper: open }),
      scan({ signals: ['tamper_open'], tamper: { permanent: 'open', current: 'closed' } }),
      scan({ signals: ['counter_gap', 'tamper_opened'] }),
      // A scan stored before signals existed: the chip's own word is enough.
      scan({ tamper: open }),
      scan({ tamper: { permanent: 'open', current: 'closed' } }),
    ];
    for (const s of opened) {
      assert.equal(sealOpened(s), true, JSON.stringify(s));
      assert.deepEqual(verdictOf(s), { label: 'genuine — seal opened', tone: 'warn' }, JSON.stringify(s));
    }
    // The current status alone (the loop open now, never latched) is not an opened seal.
    assert.equal(sealOpened(scan({ tamper: { permanent: 'closed', current: 'open' } })), false);
  });

  test('not genuine: the reason, bad, whatever the seal says', () => {
    assert.deepEqual(verdictOf(scan({ genuine: false, reason: 'bad_cmac' })), { label: 'not genuine: bad_cmac', tone: 'bad' });
    assert.deepEqual(verdictOf(scan({ genuine: false, reason: 'replayed', signals: ['replay_burst'], tamper: open })), {
      label: 'not genuine: replayed',
      tone: 'bad',
    });
  });
});
