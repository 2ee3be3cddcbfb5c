// NTAG 223 DNA (and StatusDetect) SUN mirror, AN12998: the chip mirrors
//   UID (14 hex) 'x' CTR (6 hex, MSB first) ['x' TT (10 chars)] 'x' SUNCMAC (16 hex)
// and SUNCMAC = MACt(AES-CMAC(SUN CMAC key, UID || CTR [|| TT])) over the binary values, with no
// session key derivation (unlike the 424). In the TT field the two status characters stand for
// nibbles: C -> 3, O -> F, I -> 9.
import { timingSafeEqual } from 'node:crypto';
import { AesEcb } from './aes.js';
import { aesCmacOnce, macT } from './cmac.js';
import { toHex } from './hex.js';
import { MAX_SDM_COUNTER } from './sdm.js';
import { tamperChars, parseTamperChars, type Tamper } from './tamper.js';
import type { SunVerdict } from './verdict.js';

const MIRROR_RE = /^([0-9A-Fa-f]{14})x([0-9A-Fa-f]{6})(?:x([0-9A-Za-z]{2})([0-9A-Fa-f]{8}))?x([0-9A-Fa-f]{16})$/;

const STATUS_NIBBLE: Record<string, number> = { C: 0x3, O: 0xf, I: 0x9 };

export interface Sun223Parts {
  uid: Buffer;
  counter: number;
  /** The 5 TT bytes as MACed (status nibbles mapped), or null when the mirror has no TT field. */
  tt: Buffer | null;
  tamper: Tamper;
  cmac: Buffer;
  /** UID || CTR (MSB first) [|| TT]: the SUNCMAC input. */
  macInput: Buffer;
}

/**
 * Splits a 223 mirror into its parts, or null when it is malformed. The TT status characters must be
 * two status letters (C/O/I, upper case) or "00" (status not mirrored): the letters MAC as the nibbles
 * 3/F/9, so accepting the digits 3/F/9 as well would let anyone rewrite "CO" as "3F" and hide the
 * status under a still-valid MAC.
 */
export function parseSun223(sun: unknown): Sun223Parts | null {
  if (typeof sun !== 'string') return null;
  const m = MIRROR_RE.exec(sun);
  if (m === null) return null;
  const uid = Buffer.from(m[1]!, 'hex');
  const ctr = Buffer.from(m[2]!, 'hex');
  let tt: Buffer | null = null;
  let tamper: Tamper = null;
  if (m[3] !== undefined) {
    const status = m[3];
    const a = STATUS_NIBBLE[status[0]!];
    const b = STATUS_NIBBLE[status[1]!];
    let statusByte: number;
    if (a !== undefined && b !== undefined) {
      statusByte = (a << 4) | b;
      tamper = parseTamperChars(status)!;
    } else if (status === '00') {
      statusByte = 0;
    } else {
      return null;
    }
    tt = Buffer.concat([Buffer.from([statusByte]), Buffer.from(m[4]!, 'hex')]);
  }
  const macInput = tt === null ? Buffer.concat([uid, ctr]) : Buffer.concat([uid, ctr, tt]);
  return {
    uid,
    counter: (ctr[0]! << 16) | (ctr[1]! << 8) | ctr[2]!,
    tt,
    tamper,
    cmac: Buffer.from(m[5]!, 'hex'),
    macInput,
  };
}

/**
 * SUNCMAC (8 bytes) for a 223 MAC input. The SUN CMAC key is per chip, and taps of one chip are rare
 * next to taps of all others, so a throwaway cipher beats churning the shared cipher cache (measured
 * in bench/chips.ts: the cache wins only when one chip is tapped over and over).
 */
export function sun223Mac(key: Uint8Array, macInput: Uint8Array): Buffer {
  return macT(aesCmacOnce(new AesEcb(key), macInput));
}

/**
 * Verifies an NTAG 223 DNA SUN mirror. A malformed mirror is 'bad_picc_data', a MAC mismatch
 * 'bad_cmac'; never throws for scan input (TypeError only for a key that is not 16 bytes).
 */
export function verifySun223(input: { key: Uint8Array; sun: string }): SunVerdict {
  if (!(input.key instanceof Uint8Array) || input.key.length !== 16) throw new TypeError('key must be a 16-byte Uint8Array');
  const parts = parseSun223(input.sun);
  if (parts === null) return { ok: false, reason: 'bad_picc_data' };
  const uid = toHex(parts.uid);
  if (!timingSafeEqual(sun223Mac(input.key, parts.macInput), parts.cmac)) {
    return { ok: false, reason: 'bad_cmac', uid, counter: parts.counter };
  }
  return { ok: true, uid, counter: parts.counter, tamper: parts.tamper, fileData: null };
}

/**
 * Emulator side: the mirror a 223 DNA would show. With `tamper` (StatusDetect) the TT field carries
 * the two status letters followed by `ttTail` (8 hex, default "00000000").
 */
export function generateSun223(input: { key: Uint8Array; uid: Uint8Array; counter: number; tamper?: NonNullable<Tamper>; ttTail?: string }): string {
  if (input.key.length !== 16) throw new TypeError('key must be 16 bytes');
  if (input.uid.length !== 7) throw new TypeError('UID must be 7 bytes');
  const c = input.counter;
  if (!Number.isInteger(c) || c < 0 || c > MAX_SDM_COUNTER) throw new RangeError(`counter must be in 0..${MAX_SDM_COUNTER}`);
  const uidHex = toHex(input.uid);
  const ctrHex = c.toString(16).toUpperCase().padStart(6, '0');
  let text = `${uidHex}x${ctrHex}`;
  if (input.tamper !== undefined) {
    const tail = input.ttTail ?? '00000000';
    if (!/^[0-9A-F]{8}$/.test(tail)) throw new TypeError('ttTail must be 8 upper-case hex digits');
    text += `x${tamperChars(input.tamper)}${tail}`;
  }
  const parts = parseSun223(`${text}x0000000000000000`)!;
  return `${text}x${toHex(sun223Mac(input.key, parts.macInput))}`;
}
