// Access rights and file settings with SDM (NT4H2421Gx 8.2.3.3, 9.3, 10.7.1; NT4H2421Tx Table 69 for TTStatus): the ChangeFileSettings / GetFileSettings wire codec and the rules it enforces.
import { KEY_COUNT, le3, readLe3 } from './command-codes.js';
import type { CommMode } from './secure-messaging.js';

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
  if (s.ctrLimit !== null && (!s.ctrMirror || !Number.isInteger(s.ctrLimit) || s.ctrLimit < 0 || s.ctrLimit > 0xffffff))
    return 'SDMReadCtrLimit needs counter mirroring and 24 bits';
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
  const options =
    (s.uidMirror ? 0x80 : 0) | (s.ctrMirror ? 0x40 : 0) | (s.ctrLimit !== null ? 0x20 : 0) | (s.encFileData ? 0x10 : 0) | (s.ttStatus ? 0x08 : 0) | 0x01;
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
  if (!validNibble(access.read, true) || !validNibble(access.write, true) || !validNibble(access.readWrite, true) || !validNibble(access.change, true))
    return null;
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
