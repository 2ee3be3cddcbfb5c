// NTAG 424 DNA originality signature (NT4H2421Gx 9.3 Read_Sig; AN12196 section 8.2): ECDSA over
// secp224r1 where the 7-byte UID itself stands in for the message hash (no SHA). Neither node:crypto
// (which always hashes) nor @noble/curves' presets cover that, so the curve is defined here from its
// SEC 2 parameters on @noble/curves' generic Weierstrass code.
import { sha224 } from '@noble/hashes/sha2.js';
import { ecdsa, weierstrass } from '@noble/curves/abstract/weierstrass.js';

const secp224r1 = ecdsa(
  weierstrass({
    p: BigInt('0xffffffffffffffffffffffffffffffff000000000000000000000001'),
    n: BigInt('0xffffffffffffffffffffffffffff16a2e0b8f03e13dd29455c5c2a3d'),
    h: BigInt(1),
    a: BigInt('0xfffffffffffffffffffffffffffffffefffffffffffffffffffffffe'),
    b: BigInt('0xb4050a850c04b3abf54132565044b0b7d7bfd8ba270b39432355ffb4'),
    Gx: BigInt('0xb70e0cbd6bb4bf7f321390b94a03c1d356c21122343280d6115c1d21'),
    Gy: BigInt('0xbd376388b5f723fb4c22dfe6cd4375a05a07476444d5819985007e34'),
  }),
  sha224,
);

/** NXP's public key for NTAG 424 DNA originality signatures (AN12196 Table 30), uncompressed. */
export const NTAG424_ORIGINALITY_KEY = Buffer.from(
  '048A9B380AF2EE1B98DC417FECC263F8449C7625CECE82D9B916C992DA209D68422B81EC20B65A66B5102A61596AF3379200599316A00A1410',
  'hex',
);

const N = BigInt('0xffffffffffffffffffffffffffff16a2e0b8f03e13dd29455c5c2a3d');

// The verifying keys are a couple of constants (NXP's, the sandbox's): their points are parsed once
// and given a wNAF table, which makes a verification about four times faster than the generic
// path (it is on the writer's per-chip budget).
type CurvePoint = ReturnType<typeof secp224r1.Point.fromBytes>;
const KEY_POINTS_LIMIT = 8;
const keyPoints = new Map<string, CurvePoint | null>();

function keyPoint(publicKey: Uint8Array): CurvePoint | null {
  const id = Buffer.from(publicKey).toString('hex');
  let p = keyPoints.get(id);
  if (p === undefined) {
    try {
      p = secp224r1.Point.fromBytes(publicKey);
      if (p.is0()) p = null;
      else p.precompute(8, false);
    } catch {
      p = null;
    }
    if (keyPoints.size >= KEY_POINTS_LIMIT) keyPoints.delete(keyPoints.keys().next().value!);
    keyPoints.set(id, p);
  }
  return p;
}

function modInverse(a: bigint): bigint {
  let [t, nt, r, nr] = [0n, 1n, N, a % N];
  while (nr !== 0n) {
    const q = r / nr;
    [t, nt] = [nt, t - q * nt];
    [r, nr] = [nr, r - q * nr];
  }
  return t < 0n ? t + N : t;
}

function bigOf(b: Uint8Array): bigint {
  return BigInt('0x' + Buffer.from(b).toString('hex'));
}

/**
 * True when `signature` (r || s, 56 bytes, as Read_Sig returns it) is an originality signature of
 * `uid` (7 bytes) under `publicKey` (NXP's by default): plain ECDSA verification (SEC 1 4.1.4) with
 * the UID as the hash value, high S accepted as NXP signs. Never throws on malformed input.
 */
export function verifyOriginality(uid: Uint8Array, signature: Uint8Array, publicKey: Uint8Array = NTAG424_ORIGINALITY_KEY): boolean {
  if (uid.length !== 7 || signature.length !== 56) return false;
  const q = keyPoint(publicKey);
  if (q === null) return false;
  const r = bigOf(signature.subarray(0, 28));
  const s = bigOf(signature.subarray(28, 56));
  if (r <= 0n || r >= N || s <= 0n || s >= N) return false;
  // A 56-bit "hash" is shorter than n, so it enters as an integer as it is.
  const w = modInverse(s);
  const point = secp224r1.Point.BASE.multiplyUnsafe((bigOf(uid) * w) % N).add(q.multiplyUnsafe((r * w) % N));
  if (point.is0()) return false;
  return point.toAffine().x % N === r;
}

/**
 * The sandbox's own originality key pair: emulated chips sign their UID with it, so the writer's
 * originality check runs for real in sandbox mode. It is public on purpose and only ever trusted
 * for sandbox tags; production verification keeps NXP's key alone (NTAG424_ORIGINALITY_KEY).
 */
export const EMULATOR_ORIGINALITY_PRIVATE_KEY = Buffer.from('tapproof sandbox originality', 'latin1');
export const EMULATOR_ORIGINALITY_KEY = Buffer.from(secp224r1.getPublicKey(EMULATOR_ORIGINALITY_PRIVATE_KEY, false));

/** An originality signature (r || s, 56 bytes) of `uid` under `privateKey`, as Read_Sig returns it. */
export function signOriginality(uid: Uint8Array, privateKey: Uint8Array): Buffer {
  if (uid.length !== 7) throw new TypeError('UID must be 7 bytes');
  return Buffer.from(secp224r1.sign(uid, privateKey, { prehash: false, lowS: false, format: 'compact' }));
}
