// Host-side NTAG 424 DNA (and TagTamper) commands for the chip writer: C-APDU builders and R-APDU
// parsers on top of the EV2 session in ev2.ts (docs/decisions.md §4: the platform computes every
// APDU, the writer only relays them). References: NT4H2421Gx data sheet section 10 (command set),
// 8.2 (files and access rights), 9.3 (SDM file settings); NT4H2421Tx for GetTTStatus and the
// TTStatus mirror; AN12196 sections 5-6 for traces. Every builder is pure: CmdCtr only advances
// when the caller checks the response with the same session (Ev2Session.checkResponse).
import { splitResponse, SW_OK, wrapNative, type ChipVersion } from './apdu.js';
import { changeKeyData, type CommMode, type Ev2Session } from './ev2.js';

// ---------------------------------------------------------------------------------------------
// Command codes, files, keys, status words

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
// ISO 7816-4 commands

/** ISOSelectFile of an EF (or the application DF) by its 2-byte file id, no FCI (P2 = 0C). */
export function isoSelectFileApdu(fileId: number): Buffer {
  return Buffer.from([0x00, 0xa4, 0x00, 0x0c, 0x02, (fileId >>> 8) & 0xff, fileId & 0xff, 0x00]);
}

/** ISOReadBinary of the selected EF: `length` bytes (1..256, 256 sent as Le 00) from `offset` (< 32768). */
export function isoReadBinaryApdu(offset: number, length: number): Buffer {
  if (!Number.isInteger(offset) || offset < 0 || offset > 0x7fff) throw new RangeError('ISOReadBinary offset is 0..32767');
  if (!Number.isInteger(length) || length < 1 || length > 256) throw new RangeError('ISOReadBinary length is 1..256');
  return Buffer.from([0x00, 0xb0, offset >>> 8, offset & 0xff, length & 0xff]);
}

/** ISOUpdateBinary of the selected EF (plain): `data` (1..255 bytes) at `offset`. */
export function isoUpdateBinaryApdu(offset: number, data: Uint8Array): Buffer {
  if (!Number.isInteger(offset) || offset < 0 || offset > 0x7fff) throw new RangeError('ISOUpdateBinary offset is 0..32767');
  if (data.length < 1 || data.length > 255) throw new RangeError('ISOUpdateBinary data is 1..255 bytes');
  return Buffer.concat([Buffer.from([0x00, 0xd6, offset >>> 8, offset & 0xff, data.length]), data]);
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

// ---------------------------------------------------------------------------------------------
// Access rights and file settings (NT4H2421Gx 8.2.3.3, 10.7.1; NT4H2421Tx Table 69)

/** Access condition nibbles: a key number 0..4, 0xE free, 0xF never. */
export const FREE = 0xe;
export const NEVER = 0xf;

export interface AccessRights {
  read: number;
  write: number;
  readWrite: number;
  change: number;
}

/** The 16-bit value (Read, Write, ReadWrite, Change nibbles from the top) sent LSB first. */
export function accessRightsValue(a: AccessRights): number {
  return ((a.read & 0xf) << 12) | ((a.write & 0xf) << 8) | ((a.readWrite & 0xf) << 4) | (a.change & 0xf);
}

export function accessRightsOf(value: number): AccessRights {
  return { read: (value >>> 12) & 0xf, write: (value >>> 8) & 0xf, readWrite: (value >>> 4) & 0xf, change: value & 0xf };
}

function validNibble(n: number, free: boolean): boolean {
  return Number.isInteger(n) && ((n >= 0 && n < KEY_COUNT) || n === NEVER || (free && n === FREE));
}

/** SDM settings of the NDEF file. Offsets are byte positions in the file (24 bits). */
export interface SdmConfig {
  /** SDMOptions bit 7: mirror the UID (plain or inside PICCData). */
  uidMirror: boolean;
  /** SDMOptions bit 6: mirror SDMReadCtr. */
  ctrMirror: boolean;
  /** SDMOptions bit 4: encrypt part of the file (SDMENCFileData). */
  encFileData: boolean;
  /** SDMOptions bit 3 (TagTamper chips): mirror TTStatus at ttStatusOffset. */
  ttStatus: boolean;
  /** SDMOptions bit 5: SDMReadCtrLimit, or null. */
  ctrLimit: number | null;
  /** SDMMetaRead: key number (encrypted PICCData), FREE (plain UID/counter), NEVER (none). */
  metaRead: number;
  /** SDMFileRead: key number (SDMMAC / SDMENCFileData), or NEVER. */
  fileRead: number;
  /** SDMCtrRet: key number, FREE or NEVER. */
  ctrRet: number;
  uidOffset?: number;
  ctrOffset?: number;
  piccDataOffset?: number;
  ttStatusOffset?: number;
  macInputOffset?: number;
  encOffset?: number;
  encLength?: number;
  macOffset?: number;
}

/** What ChangeFileSettings sets: communication mode, access rights and SDM (NDEF file only). */
export interface FileConfig {
  commMode: CommMode;
  access: AccessRights;
  sdm: SdmConfig | null;
}

const COMM_MODE_BITS: Record<CommMode, number> = { plain: 0x00, mac: 0x01, full: 0x03 };

export function commModeOf(fileOption: number): CommMode {
  const bits = fileOption & 0x03;
  return bits === 0x01 ? 'mac' : bits === 0x03 ? 'full' : 'plain';
}

/** The offsets present on the wire, in wire order, for given SDM settings (Table 69). */
function sdmOffsetFields(s: SdmConfig): (keyof SdmConfig)[] {
  const f: (keyof SdmConfig)[] = [];
  if (s.metaRead === FREE) {
    if (s.uidMirror) f.push('uidOffset');
    if (s.ctrMirror) f.push('ctrOffset');
  } else if (s.metaRead !== NEVER) {
    f.push('piccDataOffset');
  }
  if (s.ttStatus) f.push('ttStatusOffset');
  if (s.fileRead !== NEVER) {
    f.push('macInputOffset');
    if (s.encFileData) f.push('encOffset', 'encLength');
    f.push('macOffset');
  }
  return f;
}

/**
 * Why SDM settings are illegal (Table 71 rules and offsets inside a file of `fileSize`), or null.
 * The card answers PARAMETER_ERROR for these; the host refuses them before sending anything.
 */
export function sdmConfigProblem(s: SdmConfig, fileSize: number, crypto: 'aes' | 'lrp' = 'aes'): string | null {
  if (!validNibble(s.metaRead, true)) return 'SDMMetaRead must be a key, E or F';
  if (!validNibble(s.fileRead, false)) return 'SDMFileRead must be a key or F';
  if (!validNibble(s.ctrRet, true)) return 'SDMCtrRet must be a key, E or F';
  if (s.metaRead === NEVER && (s.uidMirror || s.ctrMirror)) return 'UID/counter mirroring needs SDMMetaRead';
  if (s.metaRead !== NEVER && !s.uidMirror && !s.ctrMirror) return 'SDMMetaRead set without UID or counter mirroring';
  if (s.encFileData && (s.fileRead === NEVER || !s.uidMirror || !s.ctrMirror)) return 'SDMENCFileData needs SDMFileRead and UID and counter mirroring';
  if (s.ctrLimit !== null && (!s.ctrMirror || !Number.isInteger(s.ctrLimit) || s.ctrLimit < 0 || s.ctrLimit > 0xffffff)) return 'SDMReadCtrLimit needs counter mirroring and 24 bits';
  if (s.ctrRet !== NEVER && !s.ctrMirror) return 'SDMCtrRet needs counter mirroring';
  // PICCData as hex: 16 bytes (AES), PICCRand 8 + 16 bytes (LRP).
  const piccLen = s.metaRead === FREE ? 0 : crypto === 'lrp' ? 48 : 32;
  const regions: [string, number | undefined, number][] = [
    ['UID', s.uidOffset, 14],
    ['SDMReadCtr', s.ctrOffset, 6],
    ['PICCData', s.piccDataOffset, piccLen],
    ['TTStatus', s.ttStatusOffset, 2],
    ['SDMMAC', s.macOffset, 16],
  ];
  for (const field of sdmOffsetFields(s)) {
    const v = s[field];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffffff) return `${field} is missing or not a 24-bit offset`;
  }
  for (const [name, off, len] of regions) if (off !== undefined && off + len > fileSize) return `${name} does not fit in the file`;
  if (s.fileRead !== NEVER) {
    if (s.macInputOffset! > s.macOffset!) return 'SDMMACInputOffset is after SDMMACOffset';
    if (s.encFileData) {
      const len = s.encLength!;
      if (len < 32 || len % 32 !== 0) return 'SDMENCLength must be a non-zero multiple of 32';
      if (s.encOffset! < s.macInputOffset! || s.encOffset! + len > s.macOffset!) return 'SDMENCFileData must lie between SDMMACInputOffset and SDMMACOffset';
    }
  }
  if (s.ttStatus && s.encFileData && s.ttStatusOffset! >= s.encOffset! && s.ttStatusOffset! < s.encOffset! + s.encLength!) {
    // Inside the encrypted range the status must sit in the plaintext half (Table 71).
    if (s.ttStatusOffset! + 2 > s.encOffset! + s.encLength! / 2) return 'TTStatus must lie in the plaintext half of SDMENCFileData';
  }
  return null;
}

/** ChangeFileSettings command data (after FileNo): FileOption, AccessRights, [SDM settings]. */
export function encodeFileConfig(c: FileConfig): Buffer {
  const ar = accessRightsValue(c.access);
  const head = Buffer.from([COMM_MODE_BITS[c.commMode] | (c.sdm ? 0x40 : 0), ar & 0xff, ar >>> 8]);
  if (!c.sdm) return head;
  const s = c.sdm;
  const options = (s.uidMirror ? 0x80 : 0) | (s.ctrMirror ? 0x40 : 0) | (s.ctrLimit !== null ? 0x20 : 0) | (s.encFileData ? 0x10 : 0) | (s.ttStatus ? 0x08 : 0) | 0x01;
  const sdmAr = ((s.metaRead & 0xf) << 12) | ((s.fileRead & 0xf) << 8) | 0xf0 | (s.ctrRet & 0xf);
  const parts: Buffer[] = [head, Buffer.from([options, sdmAr & 0xff, sdmAr >>> 8])];
  for (const f of sdmOffsetFields(s)) parts.push(le3(s[f] as number));
  if (s.ctrLimit !== null) parts.push(le3(s.ctrLimit));
  return Buffer.concat(parts);
}

/**
 * Decodes ChangeFileSettings data (or GetFileSettings data from `start`, see decodeGetFileSettings).
 * Null when the length or a reserved bit is wrong; rule violations are left to sdmConfigProblem.
 */
export function decodeFileConfig(data: Uint8Array): FileConfig | null {
  const b = Buffer.from(data);
  if (b.length < 3) return null;
  const fileOption = b[0]!;
  if ((fileOption & 0xbc) !== 0 || (fileOption & 0x03) === 0x02) return null;
  const access = accessRightsOf(b.readUInt16LE(1));
  if (!validNibble(access.read, true) || !validNibble(access.write, true) || !validNibble(access.readWrite, true) || !validNibble(access.change, true)) return null;
  const base: FileConfig = { commMode: commModeOf(fileOption), access, sdm: null };
  if ((fileOption & 0x40) === 0) return b.length === 3 ? base : null;
  if (b.length < 6) return null;
  const options = b[3]!;
  if ((options & 0x01) !== 0x01 || (options & 0x06) !== 0) return null;
  const sdmAr = b.readUInt16LE(4);
  if (((sdmAr >>> 4) & 0xf) !== 0xf) return null;
  const s: SdmConfig = {
    uidMirror: (options & 0x80) !== 0,
    ctrMirror: (options & 0x40) !== 0,
    encFileData: (options & 0x10) !== 0,
    ttStatus: (options & 0x08) !== 0,
    ctrLimit: null,
    metaRead: (sdmAr >>> 12) & 0xf,
    fileRead: (sdmAr >>> 8) & 0xf,
    ctrRet: sdmAr & 0xf,
  };
  const fields = sdmOffsetFields(s);
  const hasLimit = (options & 0x20) !== 0;
  if (b.length !== 6 + 3 * fields.length + (hasLimit ? 3 : 0)) return null;
  let off = 6;
  for (const f of fields) {
    (s as unknown as Record<string, number>)[f] = readLe3(b, off);
    off += 3;
  }
  if (hasLimit) s.ctrLimit = readLe3(b, off);
  return { ...base, sdm: s };
}

/** GetFileSettings response data: FileType, then the ChangeFileSettings layout with FileSize after AR. */
export function encodeGetFileSettings(c: FileConfig, fileSize: number): Buffer {
  const cfg = encodeFileConfig(c);
  return Buffer.concat([Buffer.from([0x00]), cfg.subarray(0, 3), le3(fileSize), cfg.subarray(3)]);
}

export function decodeGetFileSettings(data: Uint8Array): { fileType: number; fileSize: number; config: FileConfig } | null {
  const b = Buffer.from(data);
  if (b.length < 7) return null;
  const config = decodeFileConfig(Buffer.concat([b.subarray(1, 4), b.subarray(7)]));
  return config === null ? null : { fileType: b[0]!, fileSize: readLe3(b, 4), config };
}

// ---------------------------------------------------------------------------------------------
// Native commands in a session

/** Read_Sig (3Ch, address 00): plain before authentication, CommMode.Full inside a session. */
export function readSigApdu(session: Ev2Session | null): Buffer {
  return session === null ? wrapNative(INS.readSig, Buffer.from([0x00])) : session.commandApdu(INS.readSig, Buffer.from([0x00]), Buffer.alloc(0), 'full');
}

/** The 56-byte originality signature (r || s) from a Read_Sig response, or null. */
export function parseReadSig(rapdu: Uint8Array, session: Ev2Session | null): Buffer | null {
  const data = checked(rapdu, session, 'full');
  return data !== null && data.length === 56 ? data : null;
}

/** GetCardUID (51h): CommMode.Full, needs an authenticated session. */
export function getCardUidApdu(session: Ev2Session): Buffer {
  return session.commandApdu(INS.getCardUid, Buffer.alloc(0), Buffer.alloc(0), 'full');
}

export function parseGetCardUid(rapdu: Uint8Array, session: Ev2Session): Buffer | null {
  const data = session.checkResponse(rapdu, 'full');
  return data !== null && data.length === 7 ? data : null;
}

/** GetTTStatus (F7h, TagTamper chips): CommMode.Full in a session. */
export function getTtStatusApdu(session: Ev2Session): Buffer {
  return session.commandApdu(INS.getTtStatus, Buffer.alloc(0), Buffer.alloc(0), 'full');
}

/** TTPermStatus and TTCurrStatus as their ASCII letters ('C', 'O', 'I'), or null. */
export function parseGetTtStatus(rapdu: Uint8Array, session: Ev2Session): { permanent: string; current: string } | null {
  const data = session.checkResponse(rapdu, 'full');
  if (data === null || data.length !== 2) return null;
  return { permanent: String.fromCharCode(data[0]!), current: String.fromCharCode(data[1]!) };
}

/**
 * GetFileCounters (F6h): SDMReadCtr of the NDEF file, plain when SDMCtrRet is free, CommMode.Full
 * in a session with the SDMCtrRet key.
 */
export function getFileCountersApdu(session: Ev2Session | null, fileNo: number): Buffer {
  const header = Buffer.from([fileNo]);
  return session === null ? wrapNative(INS.getFileCounters, header) : session.commandApdu(INS.getFileCounters, header, Buffer.alloc(0), 'full');
}

/** The SDM read counter from a GetFileCounters response (SDMReadCtr(3) || reserved(2)), or null. */
export function parseGetFileCounters(rapdu: Uint8Array, session: Ev2Session | null): number | null {
  const data = checked(rapdu, session, 'full');
  return data !== null && data.length === 5 ? readLe3(data, 0) : null;
}

/** GetFileSettings (F5h): plain before authentication, CommMode.MAC inside a session. */
export function getFileSettingsApdu(session: Ev2Session | null, fileNo: number): Buffer {
  const header = Buffer.from([fileNo]);
  return session === null ? wrapNative(INS.getFileSettings, header) : session.commandApdu(INS.getFileSettings, header, Buffer.alloc(0), 'mac');
}

export function parseGetFileSettingsResponse(rapdu: Uint8Array, session: Ev2Session | null) {
  const data = checked(rapdu, session, 'mac');
  return data === null ? null : decodeGetFileSettings(data);
}

/** ChangeFileSettings (5Fh): CommMode.Full, FileNo in the header, settings encrypted. */
export function changeFileSettingsApdu(session: Ev2Session, fileNo: number, config: FileConfig): Buffer {
  return session.commandApdu(INS.changeFileSettings, Buffer.from([fileNo]), encodeFileConfig(config), 'full');
}

/**
 * The largest data part of one WriteData in a mode, keeping the short APDU at 255 bytes: header 7,
 * MAC 8 and, in CommMode.Full, padding to whole blocks (always at least one byte).
 */
export function maxWriteChunk(mode: CommMode): number {
  if (mode === 'plain') return 255 - 7;
  if (mode === 'mac') return 255 - 7 - 8;
  return Math.floor((255 - 7 - 8) / 16) * 16 - 1;
}

/** WriteData (8Dh): FileNo || Offset(3) || Length(3) header, data in the file's mode. */
export function writeDataApdu(session: Ev2Session | null, fileNo: number, offset: number, data: Uint8Array, mode: CommMode): Buffer {
  if (data.length === 0 || data.length > maxWriteChunk(mode)) throw new RangeError(`WriteData in CommMode.${mode} carries 1..${maxWriteChunk(mode)} bytes`);
  const header = Buffer.concat([Buffer.from([fileNo]), le3(offset), le3(data.length)]);
  if (session === null) {
    if (mode !== 'plain') throw new TypeError('WriteData outside a session is plain only');
    return wrapNative(INS.writeData, Buffer.concat([header, data]));
  }
  return session.commandApdu(INS.writeData, header, data, mode);
}

/** Splits data into the [offset, part] pieces of successive WriteData commands. */
export function writeChunks(data: Uint8Array, mode: CommMode, startOffset = 0): { offset: number; data: Buffer }[] {
  const max = maxWriteChunk(mode);
  const out: { offset: number; data: Buffer }[] = [];
  for (let i = 0; i < data.length; i += max) out.push({ offset: startOffset + i, data: Buffer.from(data.subarray(i, i + max)) });
  return out;
}

/** ReadData (ADh): FileNo || Offset(3) || Length(3) (0 = to the end of the file). */
export function readDataApdu(session: Ev2Session | null, fileNo: number, offset: number, length: number, mode: CommMode): Buffer {
  const header = Buffer.concat([Buffer.from([fileNo]), le3(offset), le3(length)]);
  if (session === null) return wrapNative(INS.readData, header);
  return session.commandApdu(INS.readData, header, Buffer.alloc(0), mode);
}

/**
 * ChangeKey (C4h), CommMode.Full, in a session authenticated with key 0. For another key the data
 * is (Old XOR New) || KeyVer || CRC32NK(New), so the old key must be known; for key 0 itself it is
 * New || KeyVer and the session ends: check the response with mode 'plain' (a bare 9100).
 */
export function changeKeyApdu(session: Ev2Session, keyNo: number, authKeyNo: number, oldKey: Uint8Array, newKey: Uint8Array, keyVersion: number): Buffer {
  if (!Number.isInteger(keyNo) || keyNo < 0 || keyNo >= KEY_COUNT) throw new RangeError('NTAG 424 DNA key numbers are 0..4');
  return session.commandApdu(INS.changeKey, Buffer.from([keyNo]), changeKeyData(keyNo, authKeyNo, oldKey, newKey, keyVersion), 'full');
}

/** The mode in which to check a ChangeKey response: changing the session's own key ends it. */
/** SetConfiguration option 05 data switching the chip to LRP (PDCap2.1 = 02); irreversible. */
export const SET_CONFIGURATION_LRP = Buffer.from('00000000020000000000', 'hex');

/** SetConfiguration (5Ch): CommMode.Full, key 0. */
export function setConfigurationApdu(session: Ev2Session, option: number, data: Uint8Array): Buffer {
  return session.commandApdu(INS.setConfiguration, Buffer.from([option]), data, 'full');
}

export function changeKeyResponseMode(keyNo: number, authKeyNo: number): CommMode {
  return keyNo === authKeyNo ? 'plain' : 'mac';
}

/**
 * GetKeyVersion (64h): plain before authentication, CommMode.MAC in a session. Lets a writer see
 * whether a chip still has its factory keys (version 0) before spending an authentication.
 */
export function getKeyVersionApdu(session: Ev2Session | null, keyNo: number): Buffer {
  if (session === null) return wrapNative(INS.getKeyVersion, Buffer.from([keyNo]));
  return session.commandApdu(INS.getKeyVersion, Buffer.from([keyNo]), Buffer.alloc(0), 'mac');
}

export function parseGetKeyVersion(rapdu: Uint8Array, session: Ev2Session | null): number | null {
  const data = checked(rapdu, session, 'mac');
  return data !== null && data.length === 1 ? data[0]! : null;
}

function checked(rapdu: Uint8Array, session: Ev2Session | null, mode: CommMode): Buffer | null {
  if (session !== null) return session.checkResponse(rapdu, mode);
  const r = splitResponse(rapdu);
  return r === null || r.sw !== SW_OK ? null : r.data;
}
