// Verification ids are time-ordered (docs/decisions.md §3): 48 bits of milliseconds then 80 random
// bits, so that the id index grows at its right edge. Through the real server, on both databases.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { base62, isId, newTimeOrderedId } from '../../src/ids.js';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { emulated, tapUrl, verify } from './helpers.js';

const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The milliseconds in the id's first 48 bits. */
function millisOf(id: string): number {
  let value = 0n;
  for (const c of id.slice(4)) value = value * 62n + BigInt(DIGITS.indexOf(c));
  return Number(value >> 80n);
}

describe('time-ordered ids', () => {
  test('the first 48 bits are the milliseconds given; the id has the shape of any other', () => {
    const at = Date.UTC(2026, 10, 25, 18, 0, 0, 123);
    const id = newTimeOrderedId('vrf', at);
    assert.equal(isId('vrf', id), true);
    assert.equal(millisOf(id), at);
    // The largest 48-bit time still fits the 22 digits.
    assert.equal(millisOf(newTimeOrderedId('vrf', 2 ** 48 - 1)), 2 ** 48 - 1);
    assert.equal(base62(new Uint8Array(16).fill(255), 22).length, 22);
  });

  test('ids of later milliseconds sort after earlier ones as text, whatever their random bits', () => {
    const ids = Array.from({ length: 200 }, (_, i) => newTimeOrderedId('vrf', 1_700_000_000_000 + i));
    assert.deepEqual([...ids].sort(), ids);
  });
});

for (const kind of DATABASES) {
  describe(`verification ids (${kind})`, () => {
    const suite = sharedServer(kind);

    test("successive scans' ids carry their scan's millisecond and sort in scan order", async () => {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const url = await tapUrl(suite.server, tag.id);
        const before = Math.floor(suite.server.clock.nowMicros() / 1000);
        const response = await verify(suite.server, suite.world.sandbox.key, url);
        const after = Math.floor(suite.server.clock.nowMicros() / 1000);
        assert.equal(response.status, 201);
        const { id, attributes } = response.body.data;
        assert.equal(attributes.reason, 'ok');
        assert.equal(isId('vrf', id), true);
        assert.ok(millisOf(id) >= before && millisOf(id) <= after, `${millisOf(id)} within ${before}..${after}`);
        ids.push(id);
        // The next scan in a later millisecond of the server's clock, so that its id must sort after this one.
        suite.server.clock.advance(1);
      }
      assert.deepEqual([...ids].sort(), ids);
    });
  });
}
