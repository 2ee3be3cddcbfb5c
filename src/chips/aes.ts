// AES block operations over node:crypto (OpenSSL). NTAG 424 DNA uses AES-128 only; AES-192/256 exist
// here because AN10922 diversification is specified for them too.
import { createCipheriv, createDecipheriv, type Cipher, type Decipher } from 'node:crypto';
import { asBuffer } from './hex.js';
import { keyCache } from './key-cache.js';

function ecbName(key: Uint8Array): string {
  switch (key.length) {
    case 16:
      return 'aes-128-ecb';
    case 24:
      return 'aes-192-ecb';
    case 32:
      return 'aes-256-ecb';
    default:
      throw new TypeError(`AES key must be 16, 24 or 32 bytes, got ${key.length}`);
  }
}

function requireBlocks(data: Uint8Array): void {
  if (data.length % 16 !== 0) throw new TypeError(`AES data must be whole 16-byte blocks, got ${data.length} bytes`);
}

/**
 * A reusable AES-ECB cipher for one key. Reuse is safe because padding is off and only whole blocks
 * are ever fed in, so OpenSSL never keeps a partial block (or any chaining state) between calls, and
 * final() is never called. Creating a cipher costs about as much as encrypting a block, which is what
 * makes reuse worth it on the verification path.
 */
export class AesEcb {
  readonly #key: Buffer;
  readonly #enc: Cipher;
  #dec: Decipher | undefined;

  constructor(key: Uint8Array) {
    this.#key = Buffer.from(key);
    this.#enc = createCipheriv(ecbName(key), this.#key, null);
    this.#enc.setAutoPadding(false);
  }

  /** Encrypts each 16-byte block independently. */
  encrypt(data: Uint8Array): Buffer {
    requireBlocks(data);
    return this.#enc.update(asBuffer(data));
  }

  /** Decrypts each 16-byte block independently. */
  decrypt(data: Uint8Array): Buffer {
    requireBlocks(data);
    if (this.#dec === undefined) {
      this.#dec = createDecipheriv(ecbName(this.#key), this.#key, null);
      this.#dec.setAutoPadding(false);
    }
    return this.#dec.update(asBuffer(data));
  }
}

// Long-lived keys (a team's SDM meta read key, a master key being diversified from) are looked up
// again and again; a small FIFO cache keeps their cipher objects. Per-chip keys do not belong here:
// with many chips they are evicted before reuse, and evicted native cipher objects cost the garbage
// collector more than creating throwaway ones (measured with bench/chips.ts).
/** A cached AesEcb for `key` (at most 256 keys). */
export const aesFor = keyCache(256, (key) => new AesEcb(key));

/** One-shot AES encryption of whole blocks with a key used once (no cache pollution). */
export function aesEncryptOnce(key: Uint8Array, data: Uint8Array): Buffer {
  requireBlocks(data);
  const c = createCipheriv(ecbName(key), asBuffer(key), null);
  c.setAutoPadding(false);
  return c.update(asBuffer(data));
}

/** One-shot AES decryption of whole blocks with a key used once. */
export function aesDecryptOnce(key: Uint8Array, data: Uint8Array): Buffer {
  requireBlocks(data);
  const c = createDecipheriv(ecbName(key), asBuffer(key), null);
  c.setAutoPadding(false);
  return c.update(asBuffer(data));
}

function cbcName(key: Uint8Array): string {
  return ecbName(key).replace('ecb', 'cbc');
}

/** AES-CBC encryption without padding (the caller pads, e.g. ISO/IEC 9797-1 method 2). */
export function aesCbcEncrypt(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Buffer {
  requireBlocks(data);
  const c = createCipheriv(cbcName(key), asBuffer(key), asBuffer(iv));
  c.setAutoPadding(false);
  return Buffer.concat([c.update(asBuffer(data)), c.final()]);
}

/** AES-CBC decryption without padding removal. */
export function aesCbcDecrypt(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Buffer {
  requireBlocks(data);
  const c = createDecipheriv(cbcName(key), asBuffer(key), asBuffer(iv));
  c.setAutoPadding(false);
  return Buffer.concat([c.update(asBuffer(data)), c.final()]);
}
