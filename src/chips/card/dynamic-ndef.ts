// Secure Dynamic Messaging on the card (NT4H2421Gx 9.3; NT4H2421Tx for the TTStatus mirror): the NDEF file with a fresh SUN message mirrored in.
import { ISO_SW, FILES } from '../command-codes.js';
import { FREE, NEVER } from '../file-settings.js';
import { toHex } from '../hex.js';
import { counterLsbFirst, encryptPiccData, MAX_SDM_COUNTER, SdmSession } from '../sdm.js';
import { tamperCharOf } from '../tamper.js';
import { Status, type Chip } from './chip.js';

/**
 * The NDEF file as an unauthenticated reader sees it in this activation: with SDM on, SDMReadCtr
 * is incremented once and UID/counter (or PICCData), TTStatus, SDMENCFileData and SDMMAC are
 * mirrored over the placeholders.
 */
export function readNdefDynamic(chip: Chip): Buffer {
  const f = chip.files[FILES.ndef.no]!;
  const s = f.config.sdm;
  if (s === null) return f.data;
  if (chip.dynamicNdef !== null) return chip.dynamicNdef;
  const mirrorsCtr = s.ctrMirror;
  if (mirrorsCtr) {
    if (chip.sdmReadCtr >= MAX_SDM_COUNTER || (s.ctrLimit !== null && chip.sdmReadCtr >= s.ctrLimit)) {
      // The counter is exhausted: the chip no longer serves the file with SDM.
      throw new Status(ISO_SW.securityNotSatisfied);
    }
    chip.sdmReadCtr += 1;
  }
  const out = Buffer.from(f.data);
  const ctrLsb = counterLsbFirst(chip.sdmReadCtr);
  const ascii = (off: number, bytes: Uint8Array) => out.write(toHex(bytes), off, 'latin1');
  if (s.metaRead === FREE) {
    if (s.uidMirror) ascii(s.uidOffset!, chip.uid);
    if (s.ctrMirror) ascii(s.ctrOffset!, Buffer.from([ctrLsb[2]!, ctrLsb[1]!, ctrLsb[0]!]));
  } else if (s.metaRead !== NEVER) {
    const plain = Buffer.alloc(16);
    let i = 0;
    plain[i++] = (s.uidMirror ? 0x80 : 0) | (s.ctrMirror ? 0x40 : 0) | (s.uidMirror ? 0x07 : 0);
    if (s.uidMirror) {
      plain.set(chip.uid, i);
      i += 7;
    }
    if (s.ctrMirror) {
      plain.set(ctrLsb, i);
      i += 3;
    }
    plain.set(chip.random(16 - i), i);
    const crypto = chip.lrp ? 'lrp' : 'aes';
    ascii(s.piccDataOffset!, encryptPiccData(crypto, chip.keys[s.metaRead]!, plain, chip.lrp ? chip.random(8) : undefined));
  }
  if (s.ttStatus && chip.tamper !== null) {
    out.write(tamperCharOf(chip.tamper.permanent) + tamperCharOf(chip.tamper.current), s.ttStatusOffset!, 'latin1');
  }
  if (s.fileRead !== NEVER) {
    // Session keys need UID and counter; without both mirrored, SDMMAC is not defined here.
    if (!s.uidMirror || !s.ctrMirror) throw new Status(ISO_SW.conditionsNotSatisfied);
    const session = new SdmSession(chip.lrp ? 'lrp' : 'aes', chip.keys[s.fileRead]!, chip.uid, ctrLsb);
    if (s.encFileData) {
      const plainLen = s.encLength! / 2;
      const plain = out.subarray(s.encOffset!, s.encOffset! + plainLen);
      ascii(s.encOffset!, session.encryptFileData(Buffer.from(plain)));
    }
    const macInput = out.subarray(s.macInputOffset!, s.macOffset!);
    ascii(s.macOffset!, session.mac(macInput));
  }
  chip.dynamicNdef = out;
  return out;
}
