// The card's ISO 7816-4 commands (NT4H2421Gx section 10, ISO/IEC 7816-4 support): SELECT, READ BINARY and UPDATE BINARY.
import { NDEF_APPLICATION_DF_NAME } from '../apdu.js';
import { FILES, ISO_SW, NDEF_APPLICATION_FILE_ID } from '../command-codes.js';
import { FREE } from '../file-settings.js';
import { FILE_BY_ID, store, sw, type Chip, type FileState } from './chip.js';
import { readNdefDynamic } from './dynamic-ndef.js';

export function isoCommand(chip: Chip, c: Buffer): Buffer {
  const ins = c[1]!;
  const p1 = c[2]!;
  const p2 = c[3]!;
  // An ISO command ends a pending multi-frame exchange (data sheet: chained commands are aborted).
  chip.pending = null;
  const body = isoBody(c);
  if (body === null) return sw(ISO_SW.wrongLength);
  switch (ins) {
    case 0xa4: {
      if (p1 === 0x04) {
        if (!body.data.equals(NDEF_APPLICATION_DF_NAME)) return sw(ISO_SW.fileNotFound);
        selectApp(chip);
        return sw(ISO_SW.ok);
      }
      if (p1 === 0x00 || p1 === 0x02) {
        if (body.data.length !== 2) return sw(ISO_SW.wrongLength);
        const id = body.data.readUInt16BE(0);
        if (id === NDEF_APPLICATION_FILE_ID || id === 0x3f00) {
          selectApp(chip);
          return sw(ISO_SW.ok);
        }
        const no = FILE_BY_ID[id];
        if (no === undefined || !chip.appSelected) return sw(ISO_SW.fileNotFound);
        chip.selectedFile = no;
        return sw(ISO_SW.ok);
      }
      return sw(ISO_SW.wrongParameters);
    }
    case 0xb0: {
      if (chip.selectedFile === null) return sw(ISO_SW.conditionsNotSatisfied);
      if ((p1 & 0x80) !== 0) return sw(ISO_SW.wrongParameters);
      const offset = (p1 << 8) | p2;
      const file = chip.files[chip.selectedFile]!;
      if (!isoAccess(chip, file, 'read')) return sw(ISO_SW.securityNotSatisfied);
      const content = chip.selectedFile === FILES.ndef.no ? readNdefDynamic(chip) : file.data;
      if (offset > content.length) return sw(ISO_SW.wrongOffset);
      const want = body.le === null ? 0 : body.le === 0 ? 256 : body.le;
      return sw(ISO_SW.ok, content.subarray(offset, Math.min(content.length, offset + (want === 0 ? 256 : want))));
    }
    case 0xd6: {
      if (chip.selectedFile === null) return sw(ISO_SW.conditionsNotSatisfied);
      if ((p1 & 0x80) !== 0) return sw(ISO_SW.wrongParameters);
      const offset = (p1 << 8) | p2;
      const file = chip.files[chip.selectedFile]!;
      if (!isoAccess(chip, file, 'write')) return sw(ISO_SW.securityNotSatisfied);
      if (body.data.length === 0) return sw(ISO_SW.wrongLength);
      if (offset + body.data.length > file.data.length) return sw(ISO_SW.wrongOffset);
      store(chip, file, offset, body.data);
      return sw(ISO_SW.ok);
    }
    default:
      return sw(ISO_SW.insNotSupported);
  }
}

function selectApp(chip: Chip): void {
  chip.appSelected = true;
  chip.selectedFile = null;
  chip.auth = null;
  chip.dynamicNdef = null;
}

/** ISO commands carry no secure messaging: free access, or a plain file and the right key. */
function isoAccess(chip: Chip, file: FileState, op: 'read' | 'write'): boolean {
  const a = file.config.access;
  const nibbles = op === 'read' ? [a.read, a.readWrite] : [a.write, a.readWrite];
  if (nibbles.includes(FREE)) return true;
  return chip.auth !== null && file.config.commMode === 'plain' && nibbles.includes(chip.auth.keyNo);
}

/** Lc/data/Le of a short ISO APDU (case 1-4); null when malformed. */
function isoBody(c: Buffer): { data: Buffer; le: number | null } | null {
  if (c.length === 4) return { data: Buffer.alloc(0), le: null };
  if (c.length === 5) return { data: Buffer.alloc(0), le: c[4]! };
  const lc = c[4]!;
  if (lc === 0) return null;
  if (c.length === 5 + lc) return { data: c.subarray(5, 5 + lc), le: null };
  if (c.length === 6 + lc) return { data: c.subarray(5, 5 + lc), le: c[5 + lc]! };
  return null;
}
