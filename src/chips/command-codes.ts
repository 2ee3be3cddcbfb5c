// NTAG 424 DNA command codes, standard files, key count and status words (NT4H2421Gx section 10), as the host and the emulated card both name them.
import { splitResponse, type ChipVersion } from './apdu.js';

export const INS = {
  authenticateEv2First: 0x71,
  authenticateEv2NonFirst: 0x77,
  additionalFrame: 0xaf,
  getVersion: 0x60,
  getCardUid: 0x51,
  readSig: 0x3c,
  getFileSettings: 0xf5,
  changeFileSettings: 0x5f,
  changeKey: 0xc4,
  getKeyVersion: 0x64,
  readData: 0xad,
  writeData: 0x8d,
  setConfiguration: 0x5c,
  getTtStatus: 0xf7,
  getFileCounters: 0xf6,
} as const;

/** Standard files of the NDEF application (NT4H2421Gx 8.2.2): number, ISO file id, size. */
export const FILES = {
  cc: { no: 0x01, id: 0xe103, size: 32 },
  ndef: { no: 0x02, id: 0xe104, size: 256 },
  proprietary: { no: 0x03, id: 0xe105, size: 128 },
} as const;

/** ISO file id of the NDEF application DF itself. */
export const NDEF_APPLICATION_FILE_ID = 0xe110;

/** Application keys 0..4 (key 0 is the AppMasterKey, the only one that may change keys). */
export const KEY_COUNT = 5;

/** Status words of native commands ("91" + the native error code, NT4H2421Gx section 10). */
export const SW = {
  ok: 0x9100,
  additionalFrame: 0x91af,
  illegalCommand: 0x911c,
  integrityError: 0x911e,
  noSuchKey: 0x9140,
  lengthError: 0x917e,
  permissionDenied: 0x919d,
  parameterError: 0x919e,
  authenticationDelay: 0x91ad,
  authenticationError: 0x91ae,
  boundaryError: 0x91be,
  commandAborted: 0x91ca,
  memoryError: 0x91ee,
  fileNotFound: 0x91f0,
} as const;

/** ISO 7816-4 status words for the ISO commands (select, read/update binary). */
export const ISO_SW = {
  ok: 0x9000,
  wrongLength: 0x6700,
  securityNotSatisfied: 0x6982,
  conditionsNotSatisfied: 0x6985,
  fileNotFound: 0x6a82,
  wrongParameters: 0x6a86,
  wrongOffset: 0x6b00,
  insNotSupported: 0x6d00,
  claNotSupported: 0x6e00,
} as const;

const SW_NAMES: Record<number, string> = {
  0x9100: 'OPERATION_OK',
  0x91af: 'ADDITIONAL_FRAME',
  0x911c: 'ILLEGAL_COMMAND_CODE',
  0x911e: 'INTEGRITY_ERROR',
  0x9140: 'NO_SUCH_KEY',
  0x917e: 'LENGTH_ERROR',
  0x919d: 'PERMISSION_DENIED',
  0x919e: 'PARAMETER_ERROR',
  0x91ad: 'AUTHENTICATION_DELAY',
  0x91ae: 'AUTHENTICATION_ERROR',
  0x91be: 'BOUNDARY_ERROR',
  0x91ca: 'COMMAND_ABORTED',
  0x91ee: 'MEMORY_ERROR',
  0x91f0: 'FILE_NOT_FOUND',
  0x9000: 'OK',
  0x6700: 'WRONG_LENGTH',
  0x6982: 'SECURITY_STATUS_NOT_SATISFIED',
  0x6985: 'CONDITIONS_OF_USE_NOT_SATISFIED',
  0x6a82: 'FILE_NOT_FOUND',
  0x6a86: 'WRONG_P1_P2',
  0x6b00: 'WRONG_OFFSET',
  0x6d00: 'INS_NOT_SUPPORTED',
  0x6e00: 'CLA_NOT_SUPPORTED',
};

/** "91AE AUTHENTICATION_ERROR": a status word as operators read it in a failure reason. */
export function describeStatus(sw: number): string {
  const hex = sw.toString(16).toUpperCase().padStart(4, '0');
  return SW_NAMES[sw] === undefined ? hex : `${hex} ${SW_NAMES[sw]}`;
}

/** The status word of an R-APDU, or null when it is shorter than two bytes. */
export function statusOf(rapdu: Uint8Array): number | null {
  return splitResponse(rapdu)?.sw ?? null;
}

/**
 * Which chip answered GetVersion: NXP (vendor 04), NTAG (HW type 04) with HW subtype 02 (NTAG 424
 * DNA) or 08 (NTAG 424 DNA TagTamper, as AN12196's trace shows), major version 3x; null for
 * anything else, which the writer refuses as not compatible.
 */
export function chipProtocolOf(v: ChipVersion): 'ntag_424_dna' | 'ntag_424_dna_tag_tamper' | null {
  if (v.hw.vendor !== 0x04 || v.hw.type !== 0x04 || (v.hw.major & 0xf0) !== 0x30) return null;
  const sub = v.hw.subtype & 0x0f;
  return sub === 0x02 ? 'ntag_424_dna' : sub === 0x08 ? 'ntag_424_dna_tag_tamper' : null;
}

// ---------------------------------------------------------------------------------------------
// Little-endian fields of native commands

export function le3(n: number): Buffer {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffff) throw new RangeError(`a 3-byte field holds 0..16777215, got ${n}`);
  return Buffer.from([n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff]);
}

export function readLe3(b: Uint8Array, off: number): number {
  return b[off]! | (b[off + 1]! << 8) | (b[off + 2]! << 16);
}
