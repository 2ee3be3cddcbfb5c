import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { aesCmac, an10922Input, cmacSubkeys, diversifyAn10922 } from '../../src/chips/index.js';
import { hex, loadVectors, upper } from './vectors.js';

const v = loadVectors('key_diversification.json');

describe('AN10922 key diversification', () => {
  for (const t of v.an10922.vectors as any[]) {
    test(`${t.id}: ${t.master_key.length * 4}-bit master key and M=${t.m} give ${t.expected}`, () => {
      assert.equal(upper(diversifyAn10922(hex(t.master_key), hex(t.m))), t.expected);
    });

    if (t.intermediate) {
      test(`${t.id}: intermediate CMAC subkeys L, K1, K2 and the padded input D`, () => {
        const s = cmacSubkeys(hex(t.master_key));
        assert.equal(upper(s.L), t.intermediate.L);
        assert.equal(upper(s.K1), t.intermediate.K1);
        assert.equal(upper(s.K2), t.intermediate.K2);
        const { D, padded } = an10922Input(0x01, hex(t.m));
        assert.equal(upper(D), t.intermediate.D);
        assert.equal(padded, true);
      });
    }

    if (t.naive_cmac_01_m_differs) {
      test(`${t.id}: a short M is padded to 32 bytes, so a plain CMAC(01 || M) gives the other key`, () => {
        const naive = aesCmac(hex(t.master_key), Buffer.concat([Buffer.from([0x01]), hex(t.m)]));
        assert.equal(upper(naive), t.naive_cmac_01_m_differs);
        assert.notEqual(upper(diversifyAn10922(hex(t.master_key), hex(t.m))), upper(naive));
      });
    }
  }

  test('a 31-byte M fills D exactly: no padding, subkey K1, and the result equals CMAC(01 || M)', () => {
    const master = hex('00112233445566778899AABBCCDDEEFF');
    const m = Buffer.alloc(31, 0x5a);
    const { D, padded } = an10922Input(0x01, m);
    assert.equal(padded, false);
    assert.equal(D.length, 32);
    // With exactly two whole blocks, AN10922's construction and a generic CMAC coincide.
    assert.deepEqual(diversifyAn10922(master, m), aesCmac(master, Buffer.concat([Buffer.from([0x01]), m])));
  });

  test('diversification input must be 1..31 bytes and the master key 16, 24 or 32 bytes', () => {
    const master = hex('00112233445566778899AABBCCDDEEFF');
    assert.throws(() => diversifyAn10922(master, Buffer.alloc(0)), RangeError);
    assert.throws(() => diversifyAn10922(master, Buffer.alloc(32)), RangeError);
    assert.throws(() => diversifyAn10922(Buffer.alloc(15), Buffer.alloc(7)), TypeError);
  });
});
