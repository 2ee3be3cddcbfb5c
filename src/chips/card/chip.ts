// The emulated card's memory (keys, files, SDM counter, what one activation holds) and the status-word plumbing every command handler shares.
import { FILES, SW } from '../command-codes.js';
import { FREE, type FileConfig } from '../file-settings.js';
import type { Ev2Session } from '../secure-messaging.js';
import type { TamperState } from '../tamper.js';

export type CardProtocol = 'ntag_424_dna' | 'ntag_424_dna_tag_tamper';

export interface FileState {
  data: Buffer;
  config: FileConfig;
}

export interface Auth {
  keyNo: number;
  session: Ev2Session;
}

export type Pending = { kind: 'auth'; keyNo: number; rndB: Buffer; first: boolean; lrp: boolean; pcdCap2: Buffer } | { kind: 'version'; step: number };

export interface Chip {
  readonly protocol: CardProtocol;
  readonly uid: Buffer;
  keys: Buffer[];
  keyVersions: number[];
  files: Record<number, FileState>;
  sdmReadCtr: number;
  signature: Buffer;
  batch: Buffer;
  tamper: { permanent: TamperState; current: TamperState } | null;
  lrp: boolean;
  random: (n: number) => Buffer;
  // Volatile state: lost when the card leaves the field.
  appSelected: boolean;
  selectedFile: number | null;
  auth: Auth | null;
  pending: Pending | null;
  /** The NDEF file as read in this activation (SDM mirrors are computed once per activation). */
  dynamicNdef: Buffer | null;
  /** Set by a tear fault for the command being executed: its write stores only the first half. */
  tearNext: boolean;
}

const CC_FILE = Buffer.from('001720010000FF0406E104010000000506E10500808283000000000000000000', 'hex');

export function factoryFiles(): Record<number, FileState> {
  // NT4H2421Gx 8.2.2 delivery state: CC read free; NDEF read/write free; proprietary file Full,
  // read key 2, write key 3, read-write key 3; every file's settings changed with key 0.
  return {
    [FILES.cc.no]: { data: Buffer.from(CC_FILE), config: { commMode: 'plain', access: { read: FREE, write: 0, readWrite: 0, change: 0 }, sdm: null } },
    [FILES.ndef.no]: {
      data: Buffer.alloc(FILES.ndef.size),
      config: { commMode: 'plain', access: { read: FREE, write: FREE, readWrite: FREE, change: 0 }, sdm: null },
    },
    [FILES.proprietary.no]: {
      data: Buffer.alloc(FILES.proprietary.size),
      config: { commMode: 'full', access: { read: 2, write: 3, readWrite: 3, change: 0 }, sdm: null },
    },
  };
}

export const FILE_BY_ID: Record<number, number> = { [FILES.cc.id]: FILES.cc.no, [FILES.ndef.id]: FILES.ndef.no, [FILES.proprietary.id]: FILES.proprietary.no };

/** A new activation, or the card leaving the field: no selection, no session, no pending frame. */
export function resetActivation(chip: Chip): void {
  chip.appSelected = false;
  chip.selectedFile = null;
  chip.auth = null;
  chip.pending = null;
  chip.dynamicNdef = null;
}

export function sw(code: number, data?: Uint8Array): Buffer {
  const out = Buffer.alloc((data?.length ?? 0) + 2);
  if (data) out.set(data, 0);
  out.writeUInt16BE(code, out.length - 2);
  return out;
}

/** An error status answered from deep inside a handler. */
export class Status extends Error {
  constructor(readonly sw: number) {
    super(`status ${sw.toString(16)}`);
  }
}

/** Writes, or with a tear fault writes half and lets transmit() report the removal. */
export function store(chip: Chip, file: FileState, offset: number, data: Buffer): void {
  const part = chip.tearNext ? data.subarray(0, Math.floor(data.length / 2)) : data;
  part.copy(file.data, offset);
  if (file === chip.files[FILES.ndef.no]) chip.dynamicNdef = null;
}

export function fileOf(chip: Chip, no: number | undefined): FileState {
  const f = no === undefined ? undefined : chip.files[no];
  if (f === undefined) throw new Status(SW.fileNotFound);
  return f;
}
