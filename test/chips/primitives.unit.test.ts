import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import {
  AesEcb,
  aesCbcDecrypt,
  aesCbcEncrypt,
  aesCmac,
  cmacSubkeys,
  crc32nk,
  crc32nkValue,
  gfDouble,
  hexToBytes,
  incrementCounter,
  isHex,
  Lrp,
  lrpCmac,
  lrpEval,
  macT,
  padM2,
  toHex,
  unpadM2,
} from '../../src/chips/index.js';
import { hex, loadVectors, upper } from './vectors.js';

const v = loadVectors('crypto_primitives.json');

describe('AES-CMAC (RFC 4493 section 4)', () => {
  for (const [i, t] of (v.aes_cmac_rfc4493.vectors as any[]).entries()) {
    test(`RFC 4493 example ${i + 1}: ${t.msg.length / 2}-byte message gives ${t.mac}`, () => {
      assert.equal(upper(aesCmac(hex(t.key), hex(t.msg))), t.mac);
    });
  }

  test('RFC 4493 subkeys for the example key (L, K1, K2 of section 4)', () => {
    const s = cmacSubkeys(hex('2B7E151628AED2A6ABF7158809CF4F3C'));
    assert.equal(upper(s.L), '7DF76B0C1AB899B33E42F047B91B546F');
    assert.equal(upper(s.K1), 'FBEED618357133667C85E08F7236A8DE');
    assert.equal(upper(s.K2), 'F7DDAC306AE266CCF90BC11EE46D513B');
  });

  test('doubling in GF(2^128) folds the carry into the last byte with 0x87', () => {
    assert.equal(upper(gfDouble(hex('80000000000000000000000000000000'))), '00000000000000000000000000000087');
    assert.equal(upper(gfDouble(hex('00000000000000000000000000000001'))), '00000000000000000000000000000002');
  });

  test('the cached ECB cipher gives the same blocks as a fresh node:crypto cipher, call after call', () => {
    const key = randomBytes(16);
    const c = new AesEcb(key);
    for (let i = 0; i < 5; i++) {
      const data = randomBytes(16 * (i + 1));
      const ref = createCipheriv('aes-128-ecb', key, null).setAutoPadding(false).update(data);
      assert.deepEqual(c.encrypt(data), ref);
      assert.deepEqual(c.decrypt(ref), data);
    }
  });

  test('AES-CBC helpers round-trip and refuse partial blocks', () => {
    const key = randomBytes(16);
    const iv = randomBytes(16);
    const data = randomBytes(48);
    assert.deepEqual(aesCbcDecrypt(key, iv, aesCbcEncrypt(key, iv, data)), data);
    assert.throws(() => aesCbcEncrypt(key, iv, randomBytes(15)), TypeError);
  });
});

describe('MACt truncation (NXP: odd 0-based bytes of the CMAC)', () => {
  for (const t of v.macT_truncation.vectors as any[]) {
    test(`${t.src}: ${t.full} -> ${t.mact}`, () => {
      assert.equal(upper(macT(hex(t.full))), t.mact);
    });
  }

  test('MACt refuses anything but a 16-byte CMAC', () => {
    assert.throws(() => macT(randomBytes(8)), TypeError);
  });
});

describe('CRC32NK (ChangeKey)', () => {
  for (const t of v.crc32nk.vectors as any[]) {
    test(`${t.src}: CRC32 of the new key is ${t.crc}, sent LSB first`, () => {
      assert.equal(upper(crc32nk(hex(t.data))), t.crc);
    });
  }

  test('CRC32NK is the bitwise NOT of the IEEE CRC-32 ("123456789" -> ~CBF43926)', () => {
    assert.equal(crc32nkValue(Buffer.from('123456789')), ~0xcbf43926 >>> 0);
  });
});

describe('LRP EvalLRP (AN12304)', () => {
  const vectors = v.lrp_eval_an12304.vectors as any[];
  test(`all ${vectors.length} EvalLRP vectors, odd-length nibble inputs included`, () => {
    for (const t of vectors) {
      const got = upper(lrpEval(hex(t.KEY), Number(t.UPDATEDKEY), t.IV, t.FINALIZE === '1'));
      assert.equal(got, t.RES, `KEY=${t.KEY} IV=${t.IV} u=${t.UPDATEDKEY} final=${t.FINALIZE}`);
    }
  });

  // Intermediate values of AN12304 as printed in nfc-developer/sdm-backend tests/test_lrp.py.
  test('Algorithm 1 and 2: plaintexts P0, P15 and updated keys K0, K2 of AN12304 key 5678..A3A0', () => {
    const l = new Lrp(hex('567826B8DA8E768432A9548DBE4AA3A0'));
    assert.equal(upper(l.plaintexts[0]!), 'AC20D39F5341FE98DFCA21DA86BA7914');
    assert.equal(upper(l.plaintexts[15]!), '71B444AF257A93215311D758DD333247');
    assert.equal(upper(l.updatedKey(0)), '163D14ED24ED935373568EC521E96CF4');
    assert.equal(upper(l.updatedKey(2)), 'FE30AB50467E61783BFE6B5E0560160E');
  });

  test('the LRICB counter increments big-endian and wraps to zero within its length', () => {
    assert.equal(upper(incrementCounter(hex('1211'))), '1212');
    assert.equal(upper(incrementCounter(hex('00FF'))), '0100');
    assert.equal(upper(incrementCounter(hex('FFFFFFFF'))), '00000000');
  });
});

describe('LRP CMAC (AN12304)', () => {
  const vectors = v.lrp_cmac_an12304.vectors as any[];
  test(`all ${vectors.length} CMAC_LRP vectors`, () => {
    for (const t of vectors) assert.equal(upper(lrpCmac(hex(t.KEY), hex(t.MSG))), t.MAC, `KEY=${t.KEY}`);
  });

  test('Kx is the subkey applied to the last block: K2 = 4·k0 for padded messages, K1 = 2·k0 for whole blocks', () => {
    // The vector file describes Kx as "k0*4"; for the 8 vectors whose message is exactly one block it
    // is K1 = 2·k0, the subkey CMAC actually uses there.
    let whole = 0;
    for (const t of vectors) {
      const s = new Lrp(hex(t.KEY)).cmacSubkeys(0);
      const len = t.MSG.length / 2;
      const lastComplete = len > 0 && len % 16 === 0;
      if (lastComplete) whole++;
      assert.equal(upper(lastComplete ? s.K1 : s.K2), t.Kx, `KEY=${t.KEY}`);
      assert.equal(upper(s.K2), upper(gfDouble(s.K1)));
    }
    assert.equal(whole, 8);
  });
});

describe('LRICB (AN12304)', () => {
  for (const t of v.lricb_an12304.vectors as any[]) {
    test(`encrypts ${t.pt} with counter ${t.counter} and padding to ${t.ct}`, () => {
      const r = new Lrp(hex(t.key)).encrypt(0, hex(t.counter), hex(t.pt), t.pad);
      assert.equal(upper(r.ciphertext), t.ct);
      assert.equal(upper(r.counter), 'C3315DC1', 'one counter step per block');
    });
    test(`decrypts ${t.ct} back to ${t.pt} and strips the padding`, () => {
      const r = new Lrp(hex(t.key)).decrypt(0, hex(t.counter), hex(t.ct), t.pad);
      assert.equal(upper(r.plaintext!), t.pt);
    });
    test('a wrong counter yields no valid padding (null), not garbage', () => {
      const r = new Lrp(hex(t.key)).decrypt(0, hex('C3315DC0'), hex(t.ct), true);
      assert.equal(r.plaintext, null);
    });
  }

  test('ISO 9797-1 method 2 padding always adds 0x80 and is removed exactly', () => {
    assert.equal(upper(padM2(hex('01'))), '01800000000000000000000000000000');
    assert.equal(padM2(randomBytes(16)).length, 32);
    assert.equal(upper(unpadM2(hex('01800000000000000000000000000000'))!), '01');
    assert.equal(unpadM2(hex('01000000000000000000000000000000')), null);
  });
});

describe('hex helpers', () => {
  test('strict decoding refuses odd lengths and non-hex characters that Buffer.from would skip', () => {
    assert.equal(hexToBytes('ABZZ'), null);
    assert.equal(hexToBytes('ABC'), null);
    assert.equal(upper(hexToBytes('abCD')!), 'ABCD');
    assert.equal(isHex('00ff', 4), true);
    assert.equal(isHex('00ff', 6), false);
    assert.equal(toHex(Uint8Array.of(0xab, 0x01)), 'AB01');
  });
});
