// AES-CMAC (RFC 4493 / NIST SP 800-38B) and NXP's MACt truncation. The CMAC skeleton is shared with
// LRP-CMAC (AN12304 section 3.3), which swaps the block cipher for an LRP evaluation.
import { aesFor, type AesEcb } from './aes.js';
import { asBuffer } from './hex.js';

const ZERO_BLOCK = Buffer.alloc(16);

/** Multiplication by x in GF(2^128) with the CMAC polynomial x^128 + x^7 + x^2 + x + 1 (RFC 4493 2.3). */
export function gfDouble(block: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(16);
  let carry = 0;
  for (let i = 15; i >= 0; i--) {
    const b = block[i]!;
    out[i] = ((b << 1) | carry) & 0xff;
    carry = b >>> 7;
  }
  if (carry) out[15] = out[15]! ^ 0x87;
  return out;
}

export interface CmacSubkeys {
  /** L = E(K, 0^128) for AES; k0 = EvalLRP(.., 0^128, final) for LRP. */
  L: Buffer;
  K1: Buffer;
  K2: Buffer;
}

export function subkeysFrom(L: Buffer): CmacSubkeys {
  const K1 = gfDouble(L);
  return { L, K1, K2: gfDouble(K1) };
}

// Subkeys depend only on the key, so they are memoised per cached cipher.
const subkeyMemo = new WeakMap<AesEcb, CmacSubkeys>();

/** RFC 4493 subkeys of a cipher's key, memoised with the cipher. */
export function aesSubkeys(cipher: AesEcb): CmacSubkeys {
  let s = subkeyMemo.get(cipher);
  if (s === undefined) {
    s = subkeysFrom(cipher.encrypt(ZERO_BLOCK));
    subkeyMemo.set(cipher, s);
  }
  return s;
}

/** RFC 4493 subkey generation (L, K1, K2) for an AES key. */
export function cmacSubkeys(key: Uint8Array): CmacSubkeys {
  return aesSubkeys(aesFor(key));
}

/**
 * The CMAC chaining over any 128-bit block function: CBC-MAC where the last block is XORed with K1
 * when complete, or padded with 80 00.. and XORed with K2 otherwise (an empty message is one padded
 * block). `from`/`state` resume the chain after `from` blocks already processed into `state`.
 * `encryptBlock` may not keep its argument (the buffer is reused).
 */
export function cmacWith(encryptBlock: (block: Buffer) => Buffer, sub: CmacSubkeys, msg: Uint8Array, from = 0, state: Buffer = ZERO_BLOCK): Buffer {
  const n = msg.length === 0 ? 1 : Math.ceil(msg.length / 16);
  const lastComplete = msg.length > 0 && msg.length % 16 === 0;
  let y = state;
  const x = Buffer.allocUnsafe(16);
  for (let b = from; b < n - 1; b++) {
    const off = b * 16;
    for (let i = 0; i < 16; i++) x[i] = y[i]! ^ msg[off + i]!;
    y = encryptBlock(x);
  }
  const off = (n - 1) * 16;
  const k = lastComplete ? sub.K1 : sub.K2;
  const rest = msg.length - off;
  for (let i = 0; i < 16; i++) {
    const m = i < rest ? msg[off + i]! : i === rest ? 0x80 : 0x00;
    x[i] = y[i]! ^ m ^ k[i]!;
  }
  return encryptBlock(x);
}

/** AES-CMAC of `msg` (full 16-byte tag). Keys of 16/24/32 bytes. */
export function aesCmac(key: Uint8Array, msg: Uint8Array): Buffer {
  const cipher = aesFor(key);
  return cmacWith((b) => cipher.encrypt(b), aesSubkeys(cipher), msg);
}

/**
 * AES-CMAC with a key that is used once (SDM/EV2 session keys): avoids filling the cipher cache with
 * keys that never come back. When the message has more than one block, its first block does not
 * depend on the subkeys, so L = E(0) and E(M1) share one cipher call.
 */
export function aesCmacOnce(cipher: AesEcb, msg: Uint8Array): Buffer {
  const enc = (b: Buffer) => cipher.encrypt(b);
  if (msg.length <= 16) return cmacWith(enc, subkeysFrom(cipher.encrypt(ZERO_BLOCK)), msg);
  const two = Buffer.alloc(32);
  two.set(msg.subarray(0, 16), 16);
  const out = cipher.encrypt(two);
  return cmacWith(enc, subkeysFrom(out.subarray(0, 16)), msg, 1, out.subarray(16, 32));
}

/**
 * MACt (NT4H2421Gx section 9.1.3; AN12196 Tables 5 and 6): the 8 even-numbered bytes S14..S0 of
 * the CMAC when bytes are numbered S15 (first) .. S0 (last), i.e. 0-based indices 1, 3, .., 15.
 */
export function macT(full: Uint8Array): Buffer {
  if (full.length !== 16) throw new TypeError(`MACt needs a 16-byte CMAC, got ${full.length}`);
  const src = asBuffer(full);
  const out = Buffer.allocUnsafe(8);
  for (let i = 0; i < 8; i++) out[i] = src[2 * i + 1]!;
  return out;
}
