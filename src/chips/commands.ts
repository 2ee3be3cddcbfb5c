// Host-side C-APDU builders and R-APDU parsers of the NTAG 424 DNA commands the chip writer sends; the platform computes every APDU and the writer only relays them (docs/decisions.md §4).
import { crc32nk } from './crc32.js';
import { splitResponse, SW_OK, wrapNative } from './apdu.js';
import { INS, KEY_COUNT, le3, readLe3 } from './command-codes.js';
import { decodeGetFileSettings, encodeFileConfig, type FileConfig } from './file-settings.js';
import type { CommMode, Ev2Session } from './secure-messaging.js';

// Every builder is pure: CmdCtr only advances when the caller checks the response with the same
// session (Ev2Session.checkResponse).

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

/**
 * ChangeKey (C4h) command data before encryption (NT4H2421Gx 10.6.1): for a key other than the
 * authenticated one, (OldKey XOR NewKey) || KeyVer || CRC32NK(NewKey); for the authenticated key
 * itself, NewKey || KeyVer; that session then ends and the response (9100) carries no MAC, so check
 * it with mode 'plain'.
 */
export function changeKeyData(keyNo: number, authKeyNo: number, oldKey: Uint8Array, newKey: Uint8Array, keyVersion: number): Buffer {
  if (newKey.length !== 16 || oldKey.length !== 16) throw new TypeError('keys are 16 bytes');
  const ver = Buffer.from([keyVersion & 0xff]);
  if (keyNo === authKeyNo) return Buffer.concat([newKey, ver]);
  const x = Buffer.allocUnsafe(16);
  for (let i = 0; i < 16; i++) x[i] = oldKey[i]! ^ newKey[i]!;
  return Buffer.concat([x, ver, crc32nk(newKey)]);
}

/** The mode in which to check a ChangeKey response: changing the session's own key ends it. */
export function changeKeyResponseMode(keyNo: number, authKeyNo: number): CommMode {
  return keyNo === authKeyNo ? 'plain' : 'mac';
}

/** SetConfiguration option 05 data switching the chip to LRP (PDCap2.1 = 02); irreversible. */
export const SET_CONFIGURATION_LRP = Buffer.from('00000000020000000000', 'hex');

/** SetConfiguration (5Ch): CommMode.Full, key 0. */
export function setConfigurationApdu(session: Ev2Session, option: number, data: Uint8Array): Buffer {
  return session.commandApdu(INS.setConfiguration, Buffer.from([option]), data, 'full');
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
