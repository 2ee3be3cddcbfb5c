// The card's key and configuration commands: ChangeKey, GetKeyVersion and SetConfiguration (the switch to LRP).
import { timingSafeEqual } from 'node:crypto';
import { INS, KEY_COUNT, SW } from '../command-codes.js';
import { crc32nk } from '../crc32.js';
import { Status, sw, type Chip } from './chip.js';
import { reply, requireApp, requireAuth, unwrap } from './secure-messaging.js';

// ChangeKey (NT4H2421Gx 10.6.1): Full, authenticated with key 0.
export function changeKey(chip: Chip, data: Buffer): Buffer {
  requireApp(chip);
  const auth = requireAuth(chip);
  if (auth.keyNo !== 0) throw new Status(SW.permissionDenied);
  const { header, body } = unwrap(auth, INS.changeKey, data, 1, 'full');
  const keyNo = header[0]!;
  if (keyNo >= KEY_COUNT) throw new Status(SW.noSuchKey);
  if (keyNo === auth.keyNo) {
    if (body.length !== 17) throw new Status(SW.lengthError);
    chip.keys[keyNo] = Buffer.from(body.subarray(0, 16));
    chip.keyVersions[keyNo] = body[16]!;
    // Changing the session's own key ends the session: a bare 9100, no MAC.
    chip.auth = null;
    return sw(SW.ok);
  }
  if (body.length !== 21) throw new Status(SW.lengthError);
  const newKey = Buffer.alloc(16);
  for (let i = 0; i < 16; i++) newKey[i] = body[i]! ^ chip.keys[keyNo]![i]!;
  // The CRC over the new key proves the host knew the old one (wrong old key -> integrity error).
  if (!timingSafeEqual(crc32nk(newKey), body.subarray(17, 21))) throw new Status(SW.integrityError);
  chip.keys[keyNo] = newKey;
  chip.keyVersions[keyNo] = body[16]!;
  return reply(auth, 'mac');
}

export function getKeyVersion(chip: Chip, data: Buffer): Buffer {
  requireApp(chip);
  const auth = chip.auth;
  const { header } = auth === null ? { header: data } : unwrap(auth, INS.getKeyVersion, data, 1, 'mac');
  if (header.length !== 1) throw new Status(SW.lengthError);
  if (header[0]! >= KEY_COUNT) throw new Status(SW.noSuchKey);
  const out = Buffer.from([chip.keyVersions[header[0]!]!]);
  return auth === null ? sw(SW.ok, out) : reply(auth, 'mac', out);
}

// SetConfiguration, key 0, Full: option 05 switches to LRP for good (PDCap2.1 bit 1);
// option 00 (random ID and other PICC flags) is accepted and has no effect on this emulator.
export function setConfiguration(chip: Chip, data: Buffer): Buffer {
  requireApp(chip);
  const auth = requireAuth(chip);
  if (auth.keyNo !== 0) throw new Status(SW.permissionDenied);
  const { header, body } = unwrap(auth, INS.setConfiguration, data, 1, 'full');
  const option = header[0]!;
  if (option === 0x05) {
    if (body.length !== 10) throw new Status(SW.lengthError);
    if ((body[4]! & 0x02) !== 0) chip.lrp = true;
    else if (chip.lrp) throw new Status(SW.parameterError); // LRP cannot be switched off
  } else if (option === 0x00) {
    if (body.length !== 1) throw new Status(SW.lengthError);
  } else throw new Status(SW.parameterError);
  return reply(auth, 'mac');
}
