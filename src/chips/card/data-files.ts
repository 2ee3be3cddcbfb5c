// The card's native file commands: GetFileSettings, ChangeFileSettings, GetFileCounters, ReadData and WriteData under the files' access rights.
import { FILES, INS, SW, readLe3 } from '../command-codes.js';
import { decodeFileConfig, encodeGetFileSettings, FREE, NEVER, sdmConfigProblem } from '../file-settings.js';
import { counterLsbFirst } from '../sdm.js';
import type { CommMode } from '../secure-messaging.js';
import { fileOf, Status, store, sw, type Chip, type FileState } from './chip.js';
import { readNdefDynamic } from './dynamic-ndef.js';
import { reply, replyPlain, requireApp, unwrap } from './secure-messaging.js';

export function getFileSettings(chip: Chip, data: Buffer): Buffer {
  requireApp(chip);
  const auth = chip.auth;
  const { header } = auth === null ? { header: data } : unwrap(auth, INS.getFileSettings, data, 1, 'mac');
  if (header.length !== 1) throw new Status(SW.lengthError);
  const f = fileOf(chip, header[0]);
  const out = encodeGetFileSettings(f.config, f.data.length);
  return auth === null ? sw(SW.ok, out) : reply(auth, 'mac', out);
}

// GetFileCounters: SDMReadCtr under the SDMCtrRet access right.
export function getFileCounters(chip: Chip, data: Buffer): Buffer {
  requireApp(chip);
  const auth = chip.auth;
  const ctrRet = chip.files[FILES.ndef.no]!.config.sdm?.ctrRet ?? NEVER;
  let header: Buffer;
  let mode: CommMode = 'plain';
  if (auth !== null && auth.keyNo === ctrRet) {
    header = unwrap(auth, INS.getFileCounters, data, 1, 'full').header;
    mode = 'full';
  } else if (ctrRet === FREE) header = data;
  else throw new Status(SW.permissionDenied);
  if (header.length !== 1) throw new Status(SW.lengthError);
  const f = fileOf(chip, header[0]);
  if (f !== chip.files[FILES.ndef.no] || f.config.sdm === null) throw new Status(SW.permissionDenied);
  const out = Buffer.concat([counterLsbFirst(chip.sdmReadCtr), Buffer.alloc(2)]);
  return auth === null || mode === 'plain' ? replyPlain(auth, out) : reply(auth, 'full', out);
}

// ChangeFileSettings: Full, authenticated with the file's Change key (or plain if free).
export function changeFileSettings(chip: Chip, data: Buffer): Buffer {
  requireApp(chip);
  if (data.length < 1) throw new Status(SW.lengthError);
  const f = fileOf(chip, data[0]);
  const change = f.config.access.change;
  const auth = chip.auth;
  let body: Buffer;
  if (change === FREE && auth === null) body = data.subarray(1);
  else {
    if (auth === null || change === NEVER || (change !== FREE && auth.keyNo !== change)) throw new Status(SW.permissionDenied);
    body = unwrap(auth, INS.changeFileSettings, data, 1, 'full').body;
  }
  const config = decodeFileConfig(body);
  if (config === null) throw new Status(SW.parameterError);
  if (config.sdm !== null) {
    if (data[0] !== FILES.ndef.no) throw new Status(SW.parameterError);
    if (config.sdm.ttStatus && chip.tamper === null) throw new Status(SW.parameterError);
    if (sdmConfigProblem(config.sdm, f.data.length, chip.lrp ? 'lrp' : 'aes') !== null) throw new Status(SW.parameterError);
  }
  f.config = config;
  chip.dynamicNdef = null;
  return auth === null ? sw(SW.ok) : reply(auth, 'mac');
}

/**
 * The mode a data command runs in: free access is plain; a key grants access only in a session
 * authenticated with that key, in the file's CommMode (NT4H2421Gx 8.2.3, access rights).
 */
function dataMode(chip: Chip, file: FileState, nibbles: number[]): CommMode {
  const auth = chip.auth;
  if (auth !== null && nibbles.includes(auth.keyNo)) return file.config.commMode;
  if (nibbles.includes(FREE)) return 'plain';
  throw new Status(SW.permissionDenied);
}

export function writeData(chip: Chip, data: Buffer): Buffer {
  requireApp(chip);
  if (data.length < 7) throw new Status(SW.lengthError);
  const f = fileOf(chip, data[0]);
  const mode = dataMode(chip, f, [f.config.access.write, f.config.access.readWrite]);
  const auth = chip.auth;
  const { header, body } = auth === null ? { header: data.subarray(0, 7), body: data.subarray(7) } : unwrap(auth, INS.writeData, data, 7, mode);
  const offset = readLe3(header, 1);
  const length = readLe3(header, 4);
  if (length !== body.length || length === 0) throw new Status(SW.lengthError);
  if (offset + length > f.data.length) throw new Status(SW.boundaryError);
  store(chip, f, offset, body);
  return auth === null ? sw(SW.ok) : reply(auth, mode === 'full' ? 'mac' : mode);
}

export function readData(chip: Chip, data: Buffer): Buffer {
  requireApp(chip);
  if (data.length < 7) throw new Status(SW.lengthError);
  const f = fileOf(chip, data[0]);
  const mode = dataMode(chip, f, [f.config.access.read, f.config.access.readWrite]);
  const auth = chip.auth;
  const { header } = auth === null ? { header: data } : unwrap(auth, INS.readData, data, 7, mode);
  if (header.length !== 7) throw new Status(SW.lengthError);
  const offset = readLe3(header, 1);
  let length = readLe3(header, 4);
  const content = data[0] === FILES.ndef.no && auth === null ? readNdefDynamic(chip) : f.data;
  if (length === 0) length = content.length - offset;
  if (offset + length > content.length || length <= 0) throw new Status(SW.boundaryError);
  const out = content.subarray(offset, offset + length);
  return auth === null ? sw(SW.ok, out) : reply(auth, mode, out);
}
