// CIP-30 signData proofs: a COSE_Sign1 (CIP-8) over the challenge text, with the
// signer's COSE_Key. Strict on purpose (docs/decisions.md §7): the signature is
// checked over the protected header bytes exactly as sent, the algorithm must be
// EdDSA, the header must name the claimed address, and the key must hash to that
// address's key credential. No library verifies CIP-8 this strictly on Node, and
// the format is three CBOR structures, so it is written here on cborg + noble.
import { createPublicKey, verify } from 'node:crypto';
import { blake2b } from '@noble/hashes/blake2.js';
import { decode, encode } from 'cborg';
import { parseAddress, parseAddressBytes } from './cip19.js';

export type CardanoFailure =
  | 'malformed-signature'
  | 'malformed-key'
  | 'unsupported-algorithm'
  | 'invalid-address'
  | 'address-mismatch'
  | 'script-address'
  | 'key-mismatch'
  | 'network-mismatch'
  | 'payload-mismatch'
  | 'bad-signature';

export type WalletVerdict<F extends string> = { ok: true } | { ok: false; reason: F };

export interface CardanoProof {
  /** The bech32 address the wallet claims (CIP-30 `signData(addr, payload)`'s addr). */
  address: string;
  /** The challenge text that was to be signed. */
  message: string;
  /** COSE_Sign1, hex. */
  signature: string;
  /** COSE_Key, hex. */
  key: string;
  /** 1 mainnet, 0 test networks; omitted: not checked. */
  networkId?: number;
}

const COSE_ALG = 1;
const ALG_EDDSA = -8;
const KEY_KTY = 1;
const KTY_OKP = 1;
const KEY_CRV = -1;
const CRV_ED25519 = 6;
const KEY_X = -2;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

const decodeOptions = { useMaps: true, rejectDuplicateMapKeys: true } as const;

function fromHex(text: string): Uint8Array | null {
  return typeof text === 'string' && HEX.test(text) ? Uint8Array.from(Buffer.from(text, 'hex')) : null;
}

function cbor(bytes: Uint8Array): unknown {
  try {
    return decode(bytes, decodeOptions);
  } catch {
    return undefined;
  }
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a).equals(Buffer.from(b));
}

/** The Ed25519 public key of a CIP-30 COSE_Key, or null. */
function publicKey(keyHex: string): Uint8Array | null {
  const bytes = fromHex(keyHex);
  const key = bytes && cbor(bytes);
  if (!(key instanceof Map)) return null;
  const x = key.get(KEY_X);
  if (key.get(KEY_KTY) !== KTY_OKP || key.get(KEY_CRV) !== CRV_ED25519 || !(x instanceof Uint8Array) || x.length !== 32) return null;
  const alg = key.get(3);
  if (alg !== undefined && alg !== ALG_EDDSA) return null;
  return x;
}

export function verifyCardanoSignature(proof: CardanoProof): WalletVerdict<CardanoFailure> {
  const fail = (reason: CardanoFailure) => ({ ok: false as const, reason });
  const claimed = parseAddress(proof.address);
  if (!claimed) return fail('invalid-address');
  const bytes = fromHex(proof.signature);
  const sign1 = bytes && cbor(bytes);
  // COSE_Sign1 = [protected: bstr, unprotected: map, payload: bstr / nil, signature: bstr]
  if (!Array.isArray(sign1) || sign1.length !== 4) return fail('malformed-signature');
  const [protectedBytes, unprotected, payload, signature] = sign1 as [unknown, unknown, unknown, unknown];
  if (!(protectedBytes instanceof Uint8Array) || !(unprotected instanceof Map) || !(signature instanceof Uint8Array) || signature.length !== 64) {
    return fail('malformed-signature');
  }
  // A detached payload (nil) is not accepted: the wallet must sign the challenge itself.
  if (!(payload instanceof Uint8Array)) return fail('malformed-signature');
  const headers = cbor(protectedBytes);
  if (!(headers instanceof Map)) return fail('malformed-signature');
  if (headers.get(COSE_ALG) !== ALG_EDDSA) return fail('unsupported-algorithm');
  const headerAddress = headers.get('address');
  if (!(headerAddress instanceof Uint8Array)) return fail('malformed-signature');
  const key = publicKey(proof.key);
  if (!key) return fail('malformed-key');

  // The signature first: a header altered after signing is a bad signature, whatever it names.
  // Sig_structure = ["Signature1", body_protected, external_aad, payload] (RFC 9052 §4.4)
  const toBeSigned = encode(['Signature1', protectedBytes, new Uint8Array(0), payload]);
  if (!ed25519Verify(signature, toBeSigned, key)) return fail('bad-signature');

  const signer = parseAddressBytes(headerAddress);
  if (!signer || !equal(signer.bytes, claimed.bytes)) return fail('address-mismatch');
  if (!signer.keyHash) return fail('script-address');
  if (!equal(blake2b(key, { dkLen: 28 }), signer.keyHash)) return fail('key-mismatch');
  if (proof.networkId !== undefined && signer.networkId !== proof.networkId) return fail('network-mismatch');

  const message = new TextEncoder().encode(proof.message);
  const hashed = unprotected.get('hashed') === true;
  if (!equal(payload, hashed ? blake2b(message, { dkLen: 28 }) : message)) return fail('payload-mismatch');

  return { ok: true };
}

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): the 32 key bytes follow. */
const ED25519_SPKI = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * RFC 8032 verification in node:crypto (OpenSSL), an order of magnitude cheaper than pure JavaScript
 * on the proof path's main thread. OpenSSL already refuses S >= L; the point encodings of the key and of R
 * must also be canonical (y < p), as RFC 8032's strict decoding demands, so no signature has a twin.
 */
function ed25519Verify(signature: Uint8Array, message: Uint8Array, key: Uint8Array): boolean {
  if (signature.length !== 64 || key.length !== 32 || !canonicalPoint(key) || !canonicalPoint(signature.subarray(0, 32))) return false;
  try {
    return verify(null, message, createPublicKey({ key: Buffer.concat([ED25519_SPKI, key]), format: 'der', type: 'spki' }), signature);
  } catch {
    return false;
  }
}

/** An encoded Edwards point whose y (the low 255 bits, little-endian) is below p = 2^255 - 19. */
function canonicalPoint(encoded: Uint8Array): boolean {
  if ((encoded[31]! & 0x7f) !== 0x7f) return true;
  for (let i = 30; i >= 1; i--) if (encoded[i] !== 0xff) return true;
  return encoded[0]! < 0xed;
}
