import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  EMULATOR_ORIGINALITY_KEY,
  EMULATOR_ORIGINALITY_PRIVATE_KEY,
  NTAG424_ORIGINALITY_KEY,
  signOriginality,
  verifyOriginality,
} from '../../src/chips/index.js';

const N = BigInt('0xffffffffffffffffffffffffffff16a2e0b8f03e13dd29455c5c2a3d');
const be28 = (x: bigint) => Buffer.from(x.toString(16).padStart(56, '0'), 'hex');

describe('originality signature verification (precomputed key points)', () => {
  test('sandbox signatures verify under the sandbox key only; any flipped bit fails', () => {
    for (let i = 0; i < 20; i++) {
      const uid = Buffer.concat([Buffer.from([0x04]), randomBytes(6)]);
      const sig = signOriginality(uid, EMULATOR_ORIGINALITY_PRIVATE_KEY);
      assert.equal(verifyOriginality(uid, sig, EMULATOR_ORIGINALITY_KEY), true);
      assert.equal(verifyOriginality(uid, sig, NTAG424_ORIGINALITY_KEY), false);
      const bad = Buffer.from(sig);
      bad[i % 56] = bad[i % 56]! ^ (1 << (i % 8));
      assert.equal(verifyOriginality(uid, bad, EMULATOR_ORIGINALITY_KEY), false);
      const otherUid = Buffer.from(uid);
      otherUid[6] = otherUid[6]! ^ 1;
      assert.equal(verifyOriginality(otherUid, sig, EMULATOR_ORIGINALITY_KEY), false);
    }
  });

  test('(r, n - s) is as valid as (r, s): NXP signatures are not normalised to low S', () => {
    const uid = Buffer.from('04A1B2C3D4E5F6', 'hex');
    const sig = signOriginality(uid, EMULATOR_ORIGINALITY_PRIVATE_KEY);
    const s = BigInt('0x' + sig.subarray(28).toString('hex'));
    const flipped = Buffer.concat([sig.subarray(0, 28), be28(N - s)]);
    assert.equal(verifyOriginality(uid, flipped, EMULATOR_ORIGINALITY_KEY), true);
  });

  test('out-of-range r or s and malformed keys are simply invalid', () => {
    const uid = Buffer.from('04A1B2C3D4E5F6', 'hex');
    const sig = signOriginality(uid, EMULATOR_ORIGINALITY_PRIVATE_KEY);
    const r = sig.subarray(0, 28);
    const s = sig.subarray(28);
    for (const bad of [
      Buffer.concat([be28(0n), s]),
      Buffer.concat([r, be28(0n)]),
      Buffer.concat([be28(N), s]),
      Buffer.concat([r, be28(N)]),
      Buffer.alloc(56, 0xff),
    ]) {
      assert.equal(verifyOriginality(uid, bad, EMULATOR_ORIGINALITY_KEY), false);
    }
    assert.equal(verifyOriginality(uid, sig, Buffer.alloc(57)), false);
    assert.equal(verifyOriginality(uid, sig, Buffer.from(EMULATOR_ORIGINALITY_KEY).fill(1, 1, 5)), false, 'not on the curve');
    assert.equal(verifyOriginality(uid, sig, randomBytes(10)), false);
  });
});
