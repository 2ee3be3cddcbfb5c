// Verification of one NTAG 424 DNA / 424 DNA TagTamper SUN message (the SDM parameters of a tapped
// URL). Pure: the caller has already found the tag and its keys, and compares UID and counter with
// what it stored.
import { timingSafeEqual } from 'node:crypto';
import { isHex, toHex } from './hex.js';
import { decryptPiccData, encPiccDataLength, parsePiccData, SdmSession, type SdmCrypto } from './sdm.js';
import { parseTamperChars, type Tamper } from './tamper.js';
import type { SunVerdict } from './verdict.js';

/** SDM parameter values exactly as they appear in the URL (hex), plus the text the chip MACed. */
export interface Sun424Params {
  /** Encrypted PICCData: 32 hex (AES) or 48 hex (LRP: PICCRand || data). Absent with plain mirroring. */
  piccData?: string;
  /** Plain mirroring: UID, 14 hex. */
  uid?: string;
  /** Plain mirroring: SDMReadCtr, 6 hex, most significant byte first (as the chip mirrors it). */
  ctr?: string;
  /** SDMENCFileData hex (TagTamper status, or other encrypted file data): a multiple of 32 hex. */
  enc?: string;
  /** SDMMAC, 16 hex. */
  cmac: string;
  /** The exact URL text from SDMMACInputOffset up to the MAC value ('' for an empty MAC input). */
  macInput: string;
}

export interface Sun424Input extends Sun424Params {
  crypto: SdmCrypto;
  /** KSDMMetaRead; null = plain mirroring, then uid/ctr come from the URL parameters. */
  sdmMetaReadKey: Uint8Array | null;
  /** KSDMFileRead (SDMMAC and SDMENCFileData session keys). */
  sdmFileReadKey: Uint8Array;
  /** TagTamper chips: read the tamper status from the first two characters of the file data. */
  expectTamper?: boolean;
}

// The NDEF file of an NTAG 424 DNA is 256 bytes (NT4H2421Gx 8.2.2), which bounds everything the chip
// can mirror or MAC; longer input cannot be genuine and is refused before any cryptography.
const MAX_FILE_TEXT = 256;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function badPicc(): SunVerdict {
  return { ok: false, reason: 'bad_picc_data' };
}

function requireKey(key: unknown, name: string): Uint8Array {
  if (!(key instanceof Uint8Array) || key.length !== 16) throw new TypeError(`${name} must be a 16-byte Uint8Array`);
  return key;
}

function isEncHex(s: unknown): s is string {
  return typeof s === 'string' && s.length > 0 && s.length % 32 === 0 && s.length <= MAX_FILE_TEXT && isHex(s, s.length);
}

/**
 * Verifies a 424 DNA SUN message. Everything that comes from the scanned URL yields a verdict, never
 * an exception; malformed parameters are refused before any cryptography. Throws TypeError only for
 * programming errors (keys that are not 16 bytes, an unknown crypto mode).
 *
 * Order: PICCData (decrypt, require tag C7) -> session keys -> SDMMAC over the MAC input, compared in
 * constant time -> SDMENCFileData (only once the MAC holds) -> tamper status.
 */
export function verifySun424(input: Sun424Input): SunVerdict {
  const crypto = input.crypto;
  if (crypto !== 'aes' && crypto !== 'lrp') throw new TypeError(`crypto must be 'aes' or 'lrp', got ${String(crypto)}`);
  const fileKey = requireKey(input.sdmFileReadKey, 'sdmFileReadKey');
  const metaKey = input.sdmMetaReadKey === null ? null : requireKey(input.sdmMetaReadKey, 'sdmMetaReadKey');

  // ---- shape checks (no cryptography) ----
  let plainUid: Buffer | undefined;
  let plainCtrLsb: Buffer | undefined;
  let plainCounter: number | undefined;
  if (metaKey !== null) {
    if (!isHex(input.piccData, encPiccDataLength(crypto) * 2)) return badPicc();
  } else {
    if (!isHex(input.uid, 14) || !isHex(input.ctr, 6)) return badPicc();
    plainUid = Buffer.from(input.uid, 'hex');
    // Plain mirroring shows the counter most significant byte first; the session vectors take it
    // least significant first, as stored on chip.
    const msb = Buffer.from(input.ctr, 'hex');
    plainCtrLsb = Buffer.from([msb[2]!, msb[1]!, msb[0]!]);
    plainCounter = (msb[0]! << 16) | (msb[1]! << 8) | msb[2]!;
  }
  const hasEnc = input.enc !== undefined && input.enc !== null;
  if (hasEnc && !isEncHex(input.enc)) return badPicc();
  if (input.expectTamper === true && !hasEnc) return badPicc();
  const knownPlain = plainUid === undefined ? {} : { uid: toHex(plainUid), counter: plainCounter! };
  if (!isHex(input.cmac, 16)) return { ok: false, reason: 'bad_cmac', ...knownPlain };
  const macInput = input.macInput;
  if (typeof macInput !== 'string' || macInput.length > MAX_FILE_TEXT || !PRINTABLE_ASCII.test(macInput)) {
    return { ok: false, reason: 'bad_cmac', ...knownPlain };
  }

  // ---- PICCData ----
  let uid: Buffer;
  let ctrLsb: Buffer;
  let counter: number;
  if (metaKey !== null) {
    const picc = parsePiccData(decryptPiccData(crypto, metaKey, Buffer.from(input.piccData!, 'hex')));
    if (picc === null) return badPicc();
    ({ uid, ctrLsb, counter } = picc);
  } else {
    uid = plainUid!;
    ctrLsb = plainCtrLsb!;
    counter = plainCounter!;
  }
  const uidHex = toHex(uid);

  // ---- SDMMAC ----
  const session = new SdmSession(crypto, fileKey, uid, ctrLsb);
  const expected = session.mac(Buffer.from(macInput, 'latin1'));
  if (!timingSafeEqual(expected, Buffer.from(input.cmac, 'hex'))) {
    return { ok: false, reason: 'bad_cmac', uid: uidHex, counter };
  }

  // ---- SDMENCFileData and tamper status ----
  let fileData: Buffer | null = null;
  let tamper: Tamper = null;
  if (hasEnc) {
    fileData = session.decryptFileData(Buffer.from(input.enc!, 'hex'));
    if (input.expectTamper === true) {
      const parsed = parseTamperChars(fileData.toString('latin1', 0, 2));
      // A valid MAC with no status characters means the chip is not configured as tapproof expects
      // (TTStatus not mirrored at the start of the encrypted data); no status is better than a guess.
      if (parsed === undefined) return { ok: false, reason: 'bad_picc_data', uid: uidHex, counter };
      tamper = parsed;
    }
  }
  return { ok: true, uid: uidHex, counter, tamper, fileData };
}
