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

/**
 * True when `signature` (r || s, 56 bytes, as Read_Sig returns it) is NXP's originality signature of
 * `uid` (7 bytes). Never throws on malformed input.
 */
export function verifyOriginality(uid: Uint8Array, signature: Uint8Array, publicKey: Uint8Array = NTAG424_ORIGINALITY_KEY): boolean {
  if (uid.length !== 7 || signature.length !== 56) return false;
  try {
    return secp224r1.verify(signature, uid, publicKey, { prehash: false, lowS: false, format: 'compact' });
  } catch {
    return false;
  }
}
