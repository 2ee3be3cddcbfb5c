// The NDEF URI record a written chip carries: the tag's url plus the SDM placeholders of
// docs/decisions.md §4, where the SDM offsets fall in the NDEF file, and whether it fits at all.
// NFC Forum URI RTD (prefix codes), NDEF 1.0 short records, Type 4 Tag NDEF file (NLEN first) and
// Type 2 Tag NDEF TLV for the 223. Pure.
import { appendSdm, defaultLayout, type ChipLayout, type Params } from './url-layout.js';
import type { Protocol } from './protocols.js';
import { FILES } from './command-codes.js';
import { FREE, NEVER, type FileConfig } from './file-settings.js';

/** NFC Forum URI record prefix codes that tapproof compresses (longest first). */
const URI_PREFIXES: [number, string][] = [
  [0x02, 'https://www.'],
  [0x01, 'http://www.'],
  [0x04, 'https://'],
  [0x03, 'http://'],
];

function prefixOf(uri: string): [number, string] {
  for (const [code, text] of URI_PREFIXES) if (uri.startsWith(text)) return [code, text];
  return [0x00, ''];
}

/** Bytes before the URI text inside an NTAG 424 DNA NDEF file: NLEN(2), D1 01 PL 55, prefix code. */
const T4T_URI_START = 7;
/** The 424's NDEF file (NT4H2421Gx 8.2.2). */
export const NTAG424_NDEF_FILE_SIZE = FILES.ndef.size;
/**
 * NTAG 223 DNA user memory (NT2H2331G0: 144 bytes from page 4); a Type 2 Tag spends 4 of them on
 * the capability container page, then TLV 03 LL, the record header and the FE terminator.
 */
export const NTAG223_USER_MEMORY = 144;
const T2T_OVERHEAD = 4 + 2 + 5 + 1;

/** An NDEF message with one short URI record (payload up to 255 bytes). */
export function ndefUriMessage(uri: string): Buffer {
  const [code, prefix] = prefixOf(uri);
  const rest = Buffer.from(uri.slice(prefix.length), 'utf8');
  if (rest.length + 1 > 255) throw new RangeError('a short URI record holds at most 254 bytes of URI');
  return Buffer.concat([Buffer.from([0xd1, 0x01, rest.length + 1, 0x55, code]), rest]);
}

/** The Type 4 Tag NDEF file content: NLEN (big endian) || message. */
export function ndefFileContent(uri: string): Buffer {
  const msg = ndefUriMessage(uri);
  const nlen = Buffer.alloc(2);
  nlen.writeUInt16BE(msg.length, 0);
  return Buffer.concat([nlen, msg]);
}

/** The URI of an NDEF file holding one well-known URI record, or null when it holds anything else. */
export function parseNdefUriFile(file: Uint8Array): string | null {
  const b = Buffer.from(file);
  if (b.length < 2) return null;
  const nlen = b.readUInt16BE(0);
  if (nlen < 5 || 2 + nlen > b.length) return null;
  const msg = b.subarray(2, 2 + nlen);
  // MB, ME, SR, TNF = well known; type "U"
  if ((msg[0]! & 0xf7) !== 0xd1 || msg[1] !== 0x01 || msg[3] !== 0x55 || 4 + msg[2]! !== msg.length) return null;
  const code = msg[4]!;
  const prefix = code === 0 ? '' : URI_PREFIXES.find(([c]) => c === code)?.[1];
  if (prefix === undefined) return null;
  return prefix + msg.subarray(5).toString('utf8');
}

/** Placeholder characters the chip overwrites on each tap (length = mirrored hex length). */
const PLACEHOLDER: Record<string, number> = { picc_data: 32, enc: 32, cmac: 16, uid: 14, ctr: 6, sun: 38 };

/** Chip crypto mode: LRP PICCData carries an 8-byte PICCRand in front (48 hex characters). */
export type ChipCrypto = 'aes' | 'lrp';

function placeholder(role: string, crypto: ChipCrypto): number {
  return role === 'picc_data' && crypto === 'lrp' ? 48 : (PLACEHOLDER[role] ?? 0);
}

/** Where the SDM values sit in the NDEF file, for ChangeFileSettings. */
export interface SdmTemplate {
  /** The URI written: url + `?`/`&` + placeholders. */
  uri: string;
  /** The NDEF file content (NLEN || record), shorter than the file. */
  file: Buffer;
  layout: ChipLayout;
  piccDataOffset?: number;
  encOffset?: number;
  encLength?: number;
  macInputOffset?: number;
  macOffset?: number;
}

/**
 * The URL template of docs/decisions.md §4 for a 424 / 424 TT tag and the file offsets of its SDM
 * values. Throws RangeError when it does not fit (check ndefCapacityError first for the message).
 */
export function sdmTemplate(protocol: Protocol, url: string, options: { crypto?: ChipCrypto; layout?: ChipLayout } = {}): SdmTemplate {
  if (protocol === 'ntag_223_dna') throw new RangeError(NTAG223_WRITE_UNSUPPORTED);
  const crypto = options.crypto ?? 'aes';
  const layout = options.layout ?? defaultLayout(protocol);
  const values: Params = {};
  for (const role of Object.keys(layout.params) as (keyof Params)[]) values[role] = '0'.repeat(placeholder(role, crypto));
  const uri = appendSdm(url, layout, values);
  const capacity = ndefCapacityError(protocol, url, crypto);
  if (capacity !== null) throw new RangeError(capacity);
  const file = ndefFileContent(uri);
  const prefixLen = prefixOf(uri)[1].length;
  const fileOffset = (charIndex: number) => T4T_URI_START + Buffer.byteLength(uri.slice(prefixLen, charIndex), 'utf8');
  // The SDM part starts after the url and its separator; parameter names inside the url's own query
  // must not be mistaken for ours, so values are searched from there, in layout order.
  let from = url.length + 1;
  const at: Partial<Record<keyof Params, number>> = {};
  for (const role of ['picc_data', 'uid', 'ctr', 'enc', 'cmac'] as (keyof Params)[]) {
    const name = layout.params[role];
    if (name === undefined) continue;
    const i = uri.indexOf(`${name}=`, from);
    if (i < 0) throw new Error(`layout parameter ${name} missing from the template`);
    at[role] = fileOffset(i + name.length + 1);
    from = i + name.length + 1;
  }
  const t: SdmTemplate = { uri, file, layout };
  if (at.picc_data !== undefined) t.piccDataOffset = at.picc_data;
  if (at.enc !== undefined) {
    t.encOffset = at.enc;
    t.encLength = PLACEHOLDER.enc!;
  }
  if (at.cmac !== undefined) {
    t.macOffset = at.cmac;
    t.macInputOffset = layout.macInputFrom === null ? at.cmac : at[layout.macInputFrom as keyof Params]!;
  }
  return t;
}

/** Key numbers tapproof's write uses on a 424 (docs/decisions.md §4). */
export const KEY_SLOTS = { appMaster: 0, sdmMetaRead: 1, sdmFileRead: 2, appKey3: 3, appKey4: 4 } as const;

/**
 * NDEF file settings after the write: SDM on, file plain, read free (phones), write and change with
 * the app master key only; PICCData under the meta read key, SDMMAC (and for TT the encrypted file
 * data carrying TTStatus at its start) under the file read key.
 */
export function sdmFileConfig(protocol: Protocol, t: SdmTemplate): FileConfig {
  const tt = protocol === 'ntag_424_dna_tag_tamper';
  const hasEnc = t.encOffset !== undefined;
  return {
    commMode: 'plain',
    access: { read: FREE, write: KEY_SLOTS.appMaster, readWrite: KEY_SLOTS.appMaster, change: KEY_SLOTS.appMaster },
    sdm: {
      uidMirror: true,
      ctrMirror: true,
      encFileData: hasEnc,
      ttStatus: tt && hasEnc,
      ctrLimit: null,
      metaRead: KEY_SLOTS.sdmMetaRead,
      fileRead: KEY_SLOTS.sdmFileRead,
      ctrRet: NEVER,
      piccDataOffset: t.piccDataOffset!,
      ...(tt && hasEnc ? { ttStatusOffset: t.encOffset! } : {}),
      macInputOffset: t.macInputOffset!,
      ...(hasEnc ? { encOffset: t.encOffset!, encLength: t.encLength! } : {}),
      macOffset: t.macOffset!,
    },
  };
}

/**
 * Why a 223 cannot be written by tapproof: its personalization (NFC Forum Type 2 commands with
 * NXP's AES authentication and SUN configuration pages) is described in NXP documents that are not
 * public; import remains the way for 223 chips.
 */
export const NTAG223_WRITE_UNSUPPORTED =
  "writing NTAG 223 DNA chips is not supported: its personalization commands are not in NXP's public documents; write the chip elsewhere and use `tapproof tags import`";

/** How many bytes of url fit on a chip of this protocol (after the URI prefix is compressed). */
export function ndefUrlCapacity(protocol: Protocol, url: string, crypto: ChipCrypto = 'aes'): number {
  const [, prefix] = prefixOf(url);
  if (protocol === 'ntag_223_dna') {
    const sunLen = 1 + 'sun='.length + PLACEHOLDER.sun!;
    return NTAG223_USER_MEMORY - T2T_OVERHEAD - sunLen + prefix.length;
  }
  const layout = defaultLayout(protocol);
  let suffix = 1; // ? or &
  for (const [role, name] of Object.entries(layout.params)) suffix += name!.length + 1 + placeholder(role, crypto);
  suffix += Object.keys(layout.params).length - 1; // & between parameters
  return Math.min(NTAG424_NDEF_FILE_SIZE, T4T_URI_START + 254) - T4T_URI_START - suffix + prefix.length;
}

/**
 * A one-line reason when the tag's url plus its SDM parameters cannot fit the chip's NDEF memory,
 * or null. Checked before any APDU, so a url that cannot fit fails the write before the chip is touched
 * (docs/writer.md, reason `url_too_long`).
 */
export function ndefCapacityError(protocol: Protocol, url: string, crypto: ChipCrypto = 'aes'): string | null {
  const bytes = Buffer.byteLength(url, 'utf8');
  const max = ndefUrlCapacity(protocol, url, crypto);
  if (bytes <= max) return null;
  const chip = protocol === 'ntag_223_dna' ? 'an NTAG 223 DNA' : protocol === 'ntag_424_dna' ? 'an NTAG 424 DNA' : 'an NTAG 424 DNA TagTamper';
  return `url is ${bytes} bytes but ${chip} has room for ${max} bytes of url (the NDEF memory also holds the record header and the SUN parameters)`;
}
