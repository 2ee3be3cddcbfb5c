// NXP AN10922 "Symmetric key diversifications", AES variants (sections 2.2-2.4). AN12196 6.16.1 points
// to it for per-chip keys. The diversification input is always padded to 32 bytes (two blocks), which
// is NOT the same as a plain CMAC over C || M when C || M is shorter than 16 bytes: a plain CMAC would
// pad only to 16 and give a different key.
import { aesFor } from './aes.js';
import { cmacSubkeys } from './cmac.js';

/**
 * D = C || M || (80 00.. to 32 bytes when shorter), the input of one AN10922 CMAC before the subkey
 * XOR. `padded` says which subkey applies (K2 when padded, K1 when C || M fills 32 bytes exactly).
 */
export function an10922Input(constant: number, m: Uint8Array): { D: Buffer; padded: boolean } {
  if (m.length < 1 || m.length > 31) throw new RangeError(`AN10922 diversification input must be 1..31 bytes, got ${m.length}`);
  const D = Buffer.alloc(32);
  D[0] = constant;
  D.set(m, 1);
  const padded = m.length < 31;
  if (padded) D[1 + m.length] = 0x80;
  return { D, padded };
}

function an10922Mac(master: Uint8Array, constant: number, m: Uint8Array): Buffer {
  const { D, padded } = an10922Input(constant, m);
  const sub = cmacSubkeys(master);
  const k = padded ? sub.K2 : sub.K1;
  const cipher = aesFor(master);
  const y = cipher.encrypt(D.subarray(0, 16));
  const x = Buffer.allocUnsafe(16);
  for (let i = 0; i < 16; i++) x[i] = y[i]! ^ D[16 + i]! ^ k[i]!;
  return cipher.encrypt(x);
}

/**
 * AN10922 diversified key of the same length as `masterKey` (16, 24 or 32 bytes) for the
 * diversification input `m` (1..31 bytes, typically UID || AID || system identifier).
 */
export function diversifyAn10922(masterKey: Uint8Array, m: Uint8Array): Buffer {
  switch (masterKey.length) {
    case 16:
      return an10922Mac(masterKey, 0x01, m);
    case 24: {
      // 2.3: two CMACs; the derived key is A[0..7] || (A[8..15] XOR B[0..7]) || B[8..15].
      const a = an10922Mac(masterKey, 0x11, m);
      const b = an10922Mac(masterKey, 0x12, m);
      const out = Buffer.allocUnsafe(24);
      a.copy(out, 0, 0, 8);
      for (let i = 0; i < 8; i++) out[8 + i] = a[8 + i]! ^ b[i]!;
      b.copy(out, 16, 8, 16);
      return out;
    }
    case 32:
      // 2.4: the two CMACs side by side.
      return Buffer.concat([an10922Mac(masterKey, 0x41, m), an10922Mac(masterKey, 0x42, m)]);
    default:
      throw new TypeError(`AN10922 master key must be 16, 24 or 32 bytes, got ${masterKey.length}`);
  }
}
