// What the card tells about itself: GetVersion, the originality signature (Read_Sig), GetCardUID and the TagTamper status.
import { INS, SW } from '../command-codes.js';
import { tamperCharOf } from '../tamper.js';
import { Status, sw, type Chip } from './chip.js';
import { reply, requireAuth, unwrap } from './secure-messaging.js';

// GetVersion: three frames (HW, SW, UID/batch/production), NT4H2421Gx 10.5.2.
export function versionNext(chip: Chip, p: { kind: 'version'; step: number }, data?: Buffer): Buffer {
  if (p.step === 0 && data !== undefined && data.length !== 0) throw new Status(SW.lengthError);
  if (p.step === 0) {
    chip.pending = { kind: 'version', step: 1 };
    const subtype = chip.protocol === 'ntag_424_dna_tag_tamper' ? 0x08 : 0x02;
    return sw(SW.additionalFrame, Buffer.from([0x04, 0x04, subtype, 0x30, 0x00, 0x11, 0x05]));
  }
  if (p.step === 1) {
    chip.pending = { kind: 'version', step: 2 };
    return sw(SW.additionalFrame, Buffer.from([0x04, 0x04, 0x02, 0x01, 0x02, 0x11, 0x05]));
  }
  return sw(SW.ok, Buffer.concat([chip.uid, chip.batch, Buffer.from([0x20, 0x26])]));
}

// Read_Sig: plain outside a session, Full inside.
export function readSig(chip: Chip, data: Buffer): Buffer {
  const auth = chip.auth;
  if (auth === null) {
    if (data.length !== 1) throw new Status(SW.lengthError);
    if (data[0] !== 0x00) throw new Status(SW.parameterError);
    return sw(SW.ok, chip.signature);
  }
  const { header } = unwrap(auth, INS.readSig, data, 1, 'full');
  if (header[0] !== 0x00) throw new Status(SW.parameterError);
  return reply(auth, 'full', chip.signature);
}

export function getCardUid(chip: Chip, data: Buffer): Buffer {
  const auth = requireAuth(chip);
  unwrap(auth, INS.getCardUid, data, 0, 'full');
  return reply(auth, 'full', chip.uid);
}

export function getTtStatus(chip: Chip, data: Buffer): Buffer {
  const auth = requireAuth(chip);
  unwrap(auth, INS.getTtStatus, data, 0, 'full');
  const t = chip.tamper!;
  return reply(auth, 'full', Buffer.from(tamperCharOf(t.permanent) + tamperCharOf(t.current), 'latin1'));
}
