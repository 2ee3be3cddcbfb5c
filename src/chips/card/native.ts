// The card's native command frame (CLA 90): the additional-frame state machine and the dispatch to each command's handler.
import { INS, SW } from '../command-codes.js';
import { authPart1, authPart2 } from './authentication.js';
import { Status, sw, type Chip } from './chip.js';
import { changeFileSettings, getFileCounters, getFileSettings, readData, writeData } from './data-files.js';
import { getCardUid, getTtStatus, readSig, versionNext } from './identity.js';
import { changeKey, getKeyVersion, setConfiguration } from './key-management.js';
import { guard } from './secure-messaging.js';

export function nativeCommand(chip: Chip, c: Buffer): Buffer {
  const ins = c[1]!;
  if (c[2] !== 0 || c[3] !== 0) return sw(SW.parameterError);
  let data: Buffer;
  if (c.length === 5) data = Buffer.alloc(0);
  else if (c.length >= 7 && c[4]! === c.length - 6 && c[c.length - 1] === 0x00) data = c.subarray(5, 5 + c[4]!);
  else return sw(SW.lengthError);

  const pending = chip.pending;
  chip.pending = null;
  if (ins === INS.additionalFrame) {
    if (pending === null) return sw(SW.commandAborted);
    return guard(chip, () => (pending.kind === 'auth' ? authPart2(chip, pending, data) : versionNext(chip, pending)));
  }
  if (pending !== null) {
    // A new command while the PICC expects AF: the exchange is aborted (and with it any session).
    chip.auth = null;
    return sw(SW.commandAborted);
  }
  return guard(chip, () => {
    switch (ins) {
      case INS.getVersion:
        return versionNext(chip, { kind: 'version', step: 0 }, data);
      case INS.authenticateEv2First:
      case INS.authenticateEv2NonFirst:
        return authPart1(chip, ins === INS.authenticateEv2First, data);
      case INS.readSig:
        return readSig(chip, data);
      case INS.getCardUid:
        return getCardUid(chip, data);
      case INS.getFileSettings:
        return getFileSettings(chip, data);
      case INS.changeFileSettings:
        return changeFileSettings(chip, data);
      case INS.changeKey:
        return changeKey(chip, data);
      case INS.getKeyVersion:
        return getKeyVersion(chip, data);
      case INS.writeData:
        return writeData(chip, data);
      case INS.readData:
        return readData(chip, data);
      case INS.getFileCounters:
        return getFileCounters(chip, data);
      case INS.setConfiguration:
        return setConfiguration(chip, data);
      case INS.getTtStatus:
        if (chip.tamper === null) throw new Status(SW.illegalCommand);
        return getTtStatus(chip, data);
      default:
        throw new Status(SW.illegalCommand);
    }
  });
}
