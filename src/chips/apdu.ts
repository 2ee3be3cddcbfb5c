// ISO 7816-4 framing of NTAG 424 DNA native commands and the few plain responses the chip writer
// reads (NT4H2421Gx section 10; AN12196 section 5). Multi-byte fields inside native command data are
// least significant byte first.

/** Status words of native commands wrapped in ISO 7816-4 (NT4H2421Gx 10.1). */
export const SW_OK = 0x9100;
export const SW_ADDITIONAL_FRAME = 0x91af;

/** A native command wrapped as ISO 7816-4 APDU: 90 INS 00 00 [Lc data] 00. */
export function wrapNative(ins: number, data: Uint8Array = Buffer.alloc(0)): Buffer {
  if (data.length > 255) throw new RangeError('short APDU data is at most 255 bytes');
  return data.length === 0
    ? Buffer.from([0x90, ins, 0x00, 0x00, 0x00])
    : Buffer.concat([Buffer.from([0x90, ins, 0x00, 0x00, data.length]), data, Buffer.from([0x00])]);
}

/** Splits an R-APDU into data and status word; null when shorter than a status word. */
export function splitResponse(rapdu: Uint8Array): { data: Buffer; sw: number } | null {
  if (rapdu.length < 2) return null;
  const b = Buffer.from(rapdu);
  return { data: b.subarray(0, b.length - 2), sw: b.readUInt16BE(b.length - 2) };
}

/** NDEF application DF name (NFC Forum Type 4 Tag). */
export const NDEF_APPLICATION_DF_NAME = Buffer.from('D2760000850101', 'hex');

/** ISO SELECT of the NDEF application by DF name, no response data requested (P2 = 0C). */
export function selectNdefApplicationApdu(): Buffer {
  return Buffer.concat([Buffer.from([0x00, 0xa4, 0x04, 0x0c, NDEF_APPLICATION_DF_NAME.length]), NDEF_APPLICATION_DF_NAME, Buffer.from([0x00])]);
}

/** GetVersion (60h) and its two additional-frame requests (AFh). */
export function getVersionApdus(): Buffer[] {
  return [wrapNative(0x60), wrapNative(0xaf), wrapNative(0xaf)];
}

export interface VersionPart {
  vendor: number;
  type: number;
  subtype: number;
  major: number;
  minor: number;
  storage: number;
  protocol: number;
}

export interface ChipVersion {
  hw: VersionPart;
  sw: VersionPart;
  uid: Buffer;
  batch: Buffer;
  fabKeyCw: number;
  year: number;
}

function versionPart(b: Buffer): VersionPart {
  return { vendor: b[0]!, type: b[1]!, subtype: b[2]!, major: b[3]!, minor: b[4]!, storage: b[5]!, protocol: b[6]! };
}

/**
 * Parses the three GetVersion responses (NT4H2421Gx 10.5.2): HW info (91AF), SW info (91AF), then
 * UID(7) || BatchNo(5, last nibble shared) || FabKey/CW || year (9100). Null when malformed.
 */
export function parseGetVersion(rapdus: Uint8Array[]): ChipVersion | null {
  if (rapdus.length !== 3) return null;
  const r = rapdus.map(splitResponse);
  if (r.some((x) => x === null)) return null;
  const [hw, sw, last] = r as { data: Buffer; sw: number }[];
  if (hw!.sw !== SW_ADDITIONAL_FRAME || sw!.sw !== SW_ADDITIONAL_FRAME || last!.sw !== SW_OK) return null;
  if (hw!.data.length !== 7 || sw!.data.length !== 7 || last!.data.length !== 14) return null;
  const d = last!.data;
  return {
    hw: versionPart(hw!.data),
    sw: versionPart(sw!.data),
    uid: d.subarray(0, 7),
    batch: d.subarray(7, 12),
    fabKeyCw: d[12]!,
    year: d[13]!,
  };
}

export interface FileSettings {
  fileType: number;
  fileOption: number;
  /** Access rights as the 16-bit value (bytes LSB first on the wire): Read, Write, ReadWrite, Change nibbles. */
  accessRights: number;
  fileSize: number;
  sdmOptions?: number;
  sdmAccessRights?: number;
  /** Offsets present in the response, in order (which ones depend on SDMOptions and access rights). */
  offsets: number[];
}

function le(b: Buffer, off: number, n: number): number {
  let v = 0;
  for (let i = n - 1; i >= 0; i--) v = v * 256 + b[off + i]!;
  return v;
}

/**
 * Parses GetFileSettings response data (NT4H2421Gx 10.7.2): FileType, FileOption, AccessRights(2),
 * FileSize(3) and, when SDM is enabled (FileOption bit 6), SDMOptions, SDMAccessRights(2) and the
 * 3-byte offsets that follow. Trailing offsets that are cut off are simply absent.
 */
export function parseFileSettings(data: Uint8Array): FileSettings | null {
  const b = Buffer.from(data);
  if (b.length < 7) return null;
  const s: FileSettings = { fileType: b[0]!, fileOption: b[1]!, accessRights: le(b, 2, 2), fileSize: le(b, 4, 3), offsets: [] };
  if ((s.fileOption & 0x40) === 0 || b.length < 10) return s;
  s.sdmOptions = b[7]!;
  s.sdmAccessRights = le(b, 8, 2);
  for (let off = 10; off + 3 <= b.length; off += 3) s.offsets.push(le(b, off, 3));
  return s;
}
