// Leakage Resilient Primitive, NXP AN12304, with m = 4 (nibble-wise evaluation) as NTAG 424 DNA uses
// it in LRP mode. Every LRP step is an AES encryption under a *fresh* key (the running value y), so
// the cost is dominated by AES key setup, not by block operations; there is nothing to cache inside
// one evaluation.
import { aesDecryptOnce, aesEncryptOnce } from './aes.js';
import { cmacWith, subkeysFrom, type CmacSubkeys } from './cmac.js';
import { asBuffer } from './hex.js';
import { keyCache } from './key-cache.js';

const ZERO_BLOCK = Buffer.alloc(16);
// Algorithms 1 and 2 step the chain with E(h, 55..55) and emit E(h, AA..AA); doing both in one
// 32-byte ECB call halves the number of key setups.
const AA_55 = Buffer.concat([Buffer.alloc(16, 0xaa), Buffer.alloc(16, 0x55)]);
const FIVES_AA = Buffer.concat([Buffer.alloc(16, 0x55), Buffer.alloc(16, 0xaa)]);

/** Big-endian increment modulo 2^(8*len) (AN12304 LRICB counter; wraps to all zeros). */
export function incrementCounter(counter: Uint8Array): Buffer {
  const out = Buffer.from(counter);
  for (let i = out.length - 1; i >= 0; i--) {
    out[i] = (out[i]! + 1) & 0xff;
    if (out[i] !== 0) break;
  }
  return out;
}

/** ISO/IEC 9797-1 padding method 2 to a whole number of blocks (always adds at least 0x80). */
export function padM2(data: Uint8Array): Buffer {
  const len = (Math.floor(data.length / 16) + 1) * 16;
  const out = Buffer.alloc(len);
  out.set(data, 0);
  out[data.length] = 0x80;
  return out;
}

/** Removes ISO/IEC 9797-1 method 2 padding, or null when there is none. */
export function unpadM2(data: Uint8Array): Buffer | null {
  for (let i = data.length - 1; i >= 0; i--) {
    if (data[i] === 0x80) return Buffer.from(data.subarray(0, i));
    if (data[i] !== 0x00) return null;
  }
  return null;
}

export class Lrp {
  /** Algorithm 1: the 16 secret plaintexts P0..P15. */
  readonly plaintexts: readonly Buffer[];
  readonly #updatedKeys: Buffer[] = [];
  #h: Buffer;
  readonly #subkeys = new Map<number, CmacSubkeys>();

  constructor(key: Uint8Array) {
    if (key.length !== 16) throw new TypeError(`LRP key must be 16 bytes, got ${key.length}`);
    const first = aesEncryptOnce(key, FIVES_AA);
    let h = first.subarray(0, 16);
    const p: Buffer[] = [];
    for (let i = 0; i < 16; i++) {
      const out = aesEncryptOnce(h, AA_55);
      p.push(out.subarray(0, 16));
      h = out.subarray(16, 32);
    }
    this.plaintexts = p;
    // Algorithm 2 starts from E(k, AA..AA); updated keys are produced on demand.
    this.#h = first.subarray(16, 32);
  }

  /** Algorithm 2: updated key number `u` (0-based). */
  updatedKey(u: number): Buffer {
    if (!Number.isInteger(u) || u < 0 || u > 255) throw new RangeError(`bad updated key index ${u}`);
    while (this.#updatedKeys.length <= u) {
      const out = aesEncryptOnce(this.#h, AA_55);
      this.#updatedKeys.push(out.subarray(0, 16));
      this.#h = out.subarray(16, 32);
    }
    return this.#updatedKeys[u]!;
  }

  /**
   * Algorithm 3, EvalLRP(P, K'_u, x, final): walks the first `nibbles` 4-bit digits of x, most
   * significant first. `nibbles` defaults to all of x; AN12304's vectors include odd-length inputs.
   */
  eval(u: number, x: Uint8Array, finalize: boolean, nibbles: number = x.length * 2): Buffer {
    if (nibbles > x.length * 2 || nibbles < 0) throw new RangeError('nibble count exceeds input');
    let y: Buffer = this.updatedKey(u);
    for (let i = 0; i < nibbles; i++) {
      const byte = x[i >> 1]!;
      const nib = i & 1 ? byte & 0x0f : byte >>> 4;
      y = aesEncryptOnce(y, this.plaintexts[nib]!);
    }
    return finalize ? aesEncryptOnce(y, ZERO_BLOCK) : y;
  }

  /** CMAC_LRP subkeys (AN12304 section 3.3): k0 = EvalLRP(0^128, final), K1 = 2·k0, K2 = 4·k0. */
  cmacSubkeys(u = 0): CmacSubkeys {
    let s = this.#subkeys.get(u);
    if (s === undefined) {
      s = subkeysFrom(this.eval(u, ZERO_BLOCK, true));
      this.#subkeys.set(u, s);
    }
    return s;
  }

  /** CMAC_LRP: CMAC with EvalLRP(.., final = 1) as the block function (16-byte tag). */
  cmac(msg: Uint8Array, u = 0): Buffer {
    return cmacWith((b) => this.eval(u, b, true), this.cmacSubkeys(u), msg);
  }

  /**
   * LRICB encryption (AN12304 Algorithm 4): block i is encrypted with key EvalLRP(counter + i, final).
   * Returns the ciphertext and the counter to use next. With pad=false the data must be whole blocks.
   */
  encrypt(u: number, counter: Uint8Array, plaintext: Uint8Array, pad: boolean): { ciphertext: Buffer; counter: Buffer } {
    const pt = pad ? padM2(plaintext) : asBuffer(plaintext);
    if (pt.length === 0 || pt.length % 16 !== 0) throw new TypeError('LRICB without padding needs whole, non-empty blocks');
    const out = Buffer.allocUnsafe(pt.length);
    let r: Buffer = Buffer.from(counter);
    for (let off = 0; off < pt.length; off += 16) {
      aesEncryptOnce(this.eval(u, r, true), pt.subarray(off, off + 16)).copy(out, off);
      r = incrementCounter(r);
    }
    return { ciphertext: out, counter: r };
  }

  /**
   * LRICB decryption (AN12304 Algorithm 5). With pad=true the padding is removed; plaintext is null
   * when the padding is malformed (wrong key or tampered data).
   */
  decrypt(u: number, counter: Uint8Array, ciphertext: Uint8Array, pad: boolean): { plaintext: Buffer | null; counter: Buffer } {
    if (ciphertext.length === 0 || ciphertext.length % 16 !== 0) throw new TypeError('LRICB ciphertext must be whole, non-empty blocks');
    const out = Buffer.allocUnsafe(ciphertext.length);
    let r: Buffer = Buffer.from(counter);
    for (let off = 0; off < ciphertext.length; off += 16) {
      aesDecryptOnce(this.eval(u, r, true), ciphertext.subarray(off, off + 16)).copy(out, off);
      r = incrementCounter(r);
    }
    return { plaintext: pad ? unpadM2(out) : out, counter: r };
  }
}

/** EvalLRP for a key used once (AN12304 vectors): `ivNibbles` may have odd length, e.g. "8C3E0". */
export function lrpEval(key: Uint8Array, u: number, ivNibbles: string, finalize: boolean): Buffer {
  if (!/^[0-9A-Fa-f]*$/.test(ivNibbles)) throw new TypeError('IV must be hex nibbles');
  const padded = ivNibbles.length % 2 ? ivNibbles + '0' : ivNibbles;
  return new Lrp(key).eval(u, Buffer.from(padded, 'hex'), finalize, ivNibbles.length);
}

/** CMAC_LRP with updated key 0, as NTAG 424 DNA uses for MACs and session keys in LRP mode. */
export function lrpCmac(key: Uint8Array, msg: Uint8Array): Buffer {
  return new Lrp(key).cmac(msg, 0);
}

// A static LRP key (a team's SDM meta read key) costs 17 AES key setups to expand; a bounded FIFO
// cache keeps the expansion, like aesFor() does for AES. Per-chip keys should not go through it.
/** A cached Lrp for a long-lived key (at most 256 keys). */
export const lrpFor = keyCache(256, (key) => new Lrp(key));
