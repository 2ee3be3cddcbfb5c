// A software NTAG 424 DNA / NTAG 424 DNA TagTamper that answers ISO 7816-4 APDUs the way the data
// sheet describes (NT4H2421Gx sections 8-10, NT4H2421Tx for TagTamper): the NDEF application with its
// three files, five AES keys with versions, AuthenticateEV2First/NonFirst, EV2 secure messaging with
// CmdCtr and TI, ChangeKey, ChangeFileSettings with SDM, and on every tap a fresh SUN message
// (SDMReadCtr + 1). It is the chip behind sandbox tags and the counterpart of the writer's tests; it
// holds state in memory and serializes to JSON so the CLI can keep it between runs. Pure, no I/O.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { aesCbcDecrypt, aesCbcEncrypt } from '../aes.js';
import { crc32nk } from '../crc32.js';
import { ev2SessionKeys, Ev2Session, LrpSession, lrpSessionMaster, lrpSessionVector, type CommMode } from '../ev2.js';
import { toHex } from '../hex.js';
import { Lrp } from '../lrp.js';
import { EMULATOR_ORIGINALITY_PRIVATE_KEY, signOriginality } from '../originality.js';
import { counterLsbFirst, encryptPiccData, MAX_SDM_COUNTER, SdmSession } from '../sdm.js';
import { tamperCharOf, type TamperState } from '../tamper.js';
import { NDEF_APPLICATION_DF_NAME } from '../apdu.js';
import {
  decodeFileConfig,
  describeStatus,
  encodeFileConfig,
  encodeGetFileSettings,
  FILES,
  FREE,
  INS,
  ISO_SW,
  KEY_COUNT,
  NDEF_APPLICATION_FILE_ID,
  NEVER,
  readLe3,
  sdmConfigProblem,
  SW,
  type FileConfig,
} from '../commands.js';
import { parseNdefUriFile } from '../ndef.js';

export type CardProtocol = 'ntag_424_dna' | 'ntag_424_dna_tag_tamper';

/** Thrown by transmit() when the card has left the field (fault injection): the reader's error. */
export class CardRemovedError extends Error {
  constructor() {
    super('the card was removed from the reader');
  }
}

/**
 * One-shot faults for writer tests. `ins` selects the command (any when absent), `skip` lets that
 * many matching commands through first.
 *  - remove: the card leaves before the command reaches it (nothing executed).
 *  - drop: the command executes, then the card leaves before answering.
 *  - status: the card answers `sw` without executing.
 *  - tear: a write (WriteData / ISOUpdateBinary) stores only its first half, then the card leaves.
 */
export interface CardFault {
  kind: 'remove' | 'drop' | 'status' | 'tear';
  ins?: number;
  skip?: number;
  sw?: number;
}

interface FileState {
  data: Buffer;
  config: FileConfig;
}

/** The serialized form (hex strings): what `serialize()` writes and `deserialize()` reads. */
export interface CardState {
  format: 'tapproof-ntag424-card';
  version: 1;
  protocol: CardProtocol;
  uid: string;
  keys: string[];
  keyVersions: number[];
  files: Record<string, { data: string; config: FileConfig }>;
  sdmReadCtr: number;
  /** Read_Sig's answer (r || s), signed when the card was made. */
  signature: string;
  batch: string;
  tamper: { permanent: TamperState; current: TamperState } | null;
  /** Switched to LRP (SetConfiguration option 05): LRP authentication and SDM from then on. */
  lrp?: boolean;
}

export interface CardOptions {
  protocol?: CardProtocol;
  /** 7 bytes; default 04 + 6 random bytes (NXP's manufacturer code first). */
  uid?: Uint8Array;
  /** Signing key of the originality signature; default the sandbox emulator key. */
  originalityKey?: Uint8Array;
  /**
   * A fixed Read_Sig answer (56 bytes) instead of signing: with a real chip's UID and NXP signature
   * (AN12196 Table 30) the card passes the production originality check, for tests of that path.
   */
  signature?: Uint8Array;
  /** Keys 0..4 (16 bytes each) and their versions instead of the factory's zero keys, version 0. */
  keys?: Uint8Array[];
  keyVersions?: number[];
  /** A chip already switched to LRP (real chips leave the factory in AES mode). */
  lrp?: boolean;
  /** Random source (RndB, TI, PICCData padding); tests inject a fixed one. */
  random?: (n: number) => Buffer;
}

const CC_FILE = Buffer.from('001720010000FF0406E104010000000506E10500808283000000000000000000', 'hex');

function factoryFiles(): Record<number, FileState> {
  // NT4H2421Gx 8.2.2 delivery state: CC read free; NDEF read/write free; proprietary file Full,
  // read key 2, write key 3, read-write key 3; every file's settings changed with key 0.
  return {
    [FILES.cc.no]: { data: Buffer.from(CC_FILE), config: { commMode: 'plain', access: { read: FREE, write: 0, readWrite: 0, change: 0 }, sdm: null } },
    [FILES.ndef.no]: { data: Buffer.alloc(FILES.ndef.size), config: { commMode: 'plain', access: { read: FREE, write: FREE, readWrite: FREE, change: 0 }, sdm: null } },
    [FILES.proprietary.no]: { data: Buffer.alloc(FILES.proprietary.size), config: { commMode: 'full', access: { read: 2, write: 3, readWrite: 3, change: 0 }, sdm: null } },
  };
}

const FILE_BY_ID: Record<number, number> = { [FILES.cc.id]: FILES.cc.no, [FILES.ndef.id]: FILES.ndef.no, [FILES.proprietary.id]: FILES.proprietary.no };

function rotl1(b: Uint8Array): Buffer {
  return Buffer.concat([b.subarray(1), b.subarray(0, 1)]);
}

function sw(code: number, data?: Uint8Array): Buffer {
  const out = Buffer.alloc((data?.length ?? 0) + 2);
  if (data) out.set(data, 0);
  out.writeUInt16BE(code, out.length - 2);
  return out;
}

/** An error status answered from deep inside a handler. */
class Status extends Error {
  constructor(readonly sw: number) {
    super(`status ${sw.toString(16)}`);
  }
}

interface Auth {
  keyNo: number;
  session: Ev2Session;
}

type Pending =
  | { kind: 'auth'; keyNo: number; rndB: Buffer; first: boolean; lrp: boolean; pcdCap2: Buffer }
  | { kind: 'version'; step: number };

export class Ntag424Card {
  readonly protocol: CardProtocol;
  readonly uid: Buffer;
  #keys: Buffer[];
  #keyVersions: number[];
  #files: Record<number, FileState>;
  #sdmReadCtr: number;
  #signature: Buffer;
  #batch: Buffer;
  #tamper: { permanent: TamperState; current: TamperState } | null;
  #lrp: boolean;
  #random: (n: number) => Buffer;
  // Volatile state: lost when the card leaves the field.
  #present = true;
  #appSelected = false;
  #selectedFile: number | null = null;
  #auth: Auth | null = null;
  #pending: Pending | null = null;
  /** The NDEF file as read in this activation (SDM mirrors are computed once per activation). */
  #dynamicNdef: Buffer | null = null;
  #faults: CardFault[] = [];
  /** Every C-APDU received, for tests that count round trips. */
  readonly log: Buffer[] = [];

  constructor(options: CardOptions = {}) {
    this.#random = options.random ?? ((n) => randomBytes(n));
    this.protocol = options.protocol ?? 'ntag_424_dna';
    if (this.protocol !== 'ntag_424_dna' && this.protocol !== 'ntag_424_dna_tag_tamper') throw new TypeError('protocol must be ntag_424_dna or ntag_424_dna_tag_tamper');
    const uid = options.uid ?? Buffer.concat([Buffer.from([0x04]), this.#random(6)]);
    if (uid.length !== 7) throw new TypeError('UID must be 7 bytes');
    this.uid = Buffer.from(uid);
    if (options.keys !== undefined && (options.keys.length !== KEY_COUNT || options.keys.some((k) => k.length !== 16))) throw new TypeError('keys must be five 16-byte keys');
    this.#keys = Array.from({ length: KEY_COUNT }, (_, i) => Buffer.from(options.keys?.[i] ?? Buffer.alloc(16)));
    this.#keyVersions = Array.from({ length: KEY_COUNT }, (_, i) => (options.keyVersions?.[i] ?? 0) & 0xff);
    this.#files = factoryFiles();
    this.#sdmReadCtr = 0;
    if (options.signature !== undefined && options.signature.length !== 56) throw new TypeError('an originality signature is 56 bytes');
    this.#signature = options.signature !== undefined ? Buffer.from(options.signature) : signOriginality(this.uid, options.originalityKey ?? EMULATOR_ORIGINALITY_PRIVATE_KEY);
    this.#batch = this.#random(5);
    // The emulated TagTamper loop is enabled and closed from the factory (docs/chips.md).
    this.#tamper = this.protocol === 'ntag_424_dna_tag_tamper' ? { permanent: 'closed', current: 'closed' } : null;
    this.#lrp = options.lrp === true;
  }

  /** True once the chip was switched to LRP. */
  get lrp(): boolean {
    return this.#lrp;
  }

  // -------------------------------------------------------------------------------------------
  // Persistence

  serialize(): CardState {
    const files: CardState['files'] = {};
    for (const [no, f] of Object.entries(this.#files)) files[no] = { data: toHex(f.data), config: structuredClone(f.config) };
    return {
      format: 'tapproof-ntag424-card',
      version: 1,
      protocol: this.protocol,
      uid: toHex(this.uid),
      keys: this.#keys.map(toHex),
      keyVersions: [...this.#keyVersions],
      files,
      sdmReadCtr: this.#sdmReadCtr,
      signature: toHex(this.#signature),
      batch: toHex(this.#batch),
      tamper: this.#tamper === null ? null : { ...this.#tamper },
      lrp: this.#lrp,
    };
  }

  static deserialize(state: CardState, options: Pick<CardOptions, 'random'> = {}): Ntag424Card {
    if (state?.format !== 'tapproof-ntag424-card' || state.version !== 1) throw new TypeError('not a tapproof NTAG 424 DNA card state (format/version)');
    const hex = (s: string, n: number, what: string) => {
      if (typeof s !== 'string' || !/^[0-9A-Fa-f]*$/.test(s) || s.length !== n * 2) throw new TypeError(`card state: ${what} must be ${n} bytes of hex`);
      return Buffer.from(s, 'hex');
    };
    const card = new Ntag424Card({ protocol: state.protocol, uid: hex(state.uid, 7, 'uid'), signature: hex(state.signature, 56, 'signature') });
    if (options.random) card.#random = options.random;
    if (!Array.isArray(state.keys) || state.keys.length !== KEY_COUNT) throw new TypeError('card state: 5 keys expected');
    card.#keys = state.keys.map((k, i) => hex(k, 16, `key ${i}`));
    if (!Array.isArray(state.keyVersions) || state.keyVersions.length !== KEY_COUNT || !state.keyVersions.every((v) => Number.isInteger(v) && v >= 0 && v <= 255)) {
      throw new TypeError('card state: 5 key versions (0..255) expected');
    }
    card.#keyVersions = [...state.keyVersions];
    const files = factoryFiles();
    for (const [no, f] of Object.entries(state.files ?? {})) {
      const target = files[Number(no)];
      if (!target) throw new TypeError(`card state: unknown file ${no}`);
      // Settings go through the wire encoding, so a hand-edited state cannot hold what the chip would refuse.
      let config: FileConfig | null = null;
      try {
        config = decodeFileConfig(encodeFileConfig(f.config));
      } catch {
        config = null;
      }
      if (config === null || (config.sdm !== null && sdmConfigProblem(config.sdm, target.data.length, state.lrp === true ? 'lrp' : 'aes') !== null)) {
        throw new TypeError(`card state: file ${no} settings are not valid`);
      }
      files[Number(no)] = { data: hex(f.data, target.data.length, `file ${no}`), config };
    }
    card.#files = files;
    if (!Number.isInteger(state.sdmReadCtr) || state.sdmReadCtr < 0 || state.sdmReadCtr > MAX_SDM_COUNTER) throw new TypeError('card state: bad SDM counter');
    card.#sdmReadCtr = state.sdmReadCtr;
    card.#signature = hex(state.signature, 56, 'signature');
    card.#batch = hex(state.batch, 5, 'batch');
    const states = ['closed', 'open', 'not_enabled'];
    const t = state.tamper;
    if (card.protocol === 'ntag_424_dna_tag_tamper' ? !(t && states.includes(t.permanent) && states.includes(t.current)) : t !== null) {
      throw new TypeError('card state: tamper status does not match the protocol');
    }
    card.#tamper = t === null ? null : { permanent: t.permanent, current: t.current };
    card.#lrp = state.lrp === true;
    return card;
  }

  // -------------------------------------------------------------------------------------------
  // Field events

  /** A new activation in a reader's field: volatile state is reset (no selection, no session). */
  powerOn(): void {
    this.#present = true;
    this.#reset();
  }

  #reset(): void {
    this.#appSelected = false;
    this.#selectedFile = null;
    this.#auth = null;
    this.#pending = null;
    this.#dynamicNdef = null;
  }

  get present(): boolean {
    return this.#present;
  }

  /** Arms a one-shot fault (see CardFault). */
  injectFault(fault: CardFault): void {
    this.#faults.push({ ...fault });
  }

  /** TagTamper: open latches the permanent status; closing restores only the current one. */
  tamper(state: 'open' | 'closed'): { permanent: TamperState; current: TamperState } {
    if (this.#tamper === null) throw new TypeError('only an NTAG 424 DNA TagTamper has a tamper loop');
    this.#tamper = { permanent: state === 'open' ? 'open' : this.#tamper.permanent, current: state };
    return { ...this.#tamper };
  }

  get tamperStatus(): { permanent: TamperState; current: TamperState } | null {
    return this.#tamper === null ? null : { ...this.#tamper };
  }

  get sdmReadCtr(): number {
    return this.#sdmReadCtr;
  }

  /** True while every key is still the factory key (all zero). */
  get isFactoryKeyed(): boolean {
    return this.#keys.every((k) => k.every((b) => b === 0));
  }

  keyVersion(keyNo: number): number {
    return this.#keyVersions[keyNo]!;
  }

  /**
   * A phone's tap: a fresh activation that reads the NDEF file, so SDM mirrors a new SUN message
   * (SDMReadCtr + 1). Returns the URL the phone would open. Throws when the file holds no URI record.
   */
  tap(): string {
    this.powerOn();
    const access = this.#files[FILES.ndef.no]!.config.access;
    if (access.read !== FREE && access.readWrite !== FREE) throw new Error('a phone cannot read this chip: the NDEF file needs a key to read');
    let file: Buffer;
    try {
      file = this.#readNdefDynamic();
    } catch (e) {
      if (e instanceof Status) throw new Error(`the chip refuses the read (${describeStatus(e.sw)}): SDM read counter exhausted`);
      throw e;
    } finally {
      this.#reset();
    }
    const uri = parseNdefUriFile(file);
    if (uri === null) throw new Error('the NDEF file holds no URI record');
    return uri;
  }

  // -------------------------------------------------------------------------------------------
  // APDU exchange

  /** Answers one C-APDU with its R-APDU; throws CardRemovedError when the card left the field. */
  transmit(apdu: Uint8Array): Uint8Array {
    if (!this.#present) throw new CardRemovedError();
    const capdu = Buffer.from(apdu);
    this.log.push(capdu);
    const ins = capdu.length >= 2 ? capdu[1]! : -1;
    const fault = this.#takeFault(ins);
    if (fault?.kind === 'remove') return this.#leave();
    if (fault?.kind === 'status') return sw(fault.sw ?? SW.commandAborted);
    if (fault?.kind === 'tear') this.#tearNext = true;
    let response: Buffer;
    try {
      response = this.#dispatch(capdu);
    } catch (e) {
      // A chip answers every frame; an unforeseen input gets "no precise diagnosis", not a crash.
      if (e instanceof CardRemovedError) throw e;
      this.#auth = null;
      this.#pending = null;
      response = sw(0x6f00);
    } finally {
      this.#tearNext = false;
    }
    if (fault?.kind === 'drop' || fault?.kind === 'tear') return this.#leave();
    return response;
  }

  #tearNext = false;

  #leave(): never {
    this.#present = false;
    this.#reset();
    throw new CardRemovedError();
  }

  #takeFault(ins: number): CardFault | undefined {
    const i = this.#faults.findIndex((f) => f.ins === undefined || f.ins === ins);
    if (i < 0) return undefined;
    const f = this.#faults[i]!;
    if ((f.skip ?? 0) > 0) {
      f.skip = f.skip! - 1;
      return undefined;
    }
    this.#faults.splice(i, 1);
    return f;
  }

  #dispatch(capdu: Buffer): Buffer {
    if (capdu.length < 4) return sw(ISO_SW.wrongLength);
    const cla = capdu[0]!;
    if (cla === 0x90) return this.#native(capdu);
    if (cla === 0x00) {
      try {
        return this.#iso(capdu);
      } catch (e) {
        if (e instanceof Status) return sw(e.sw);
        throw e;
      }
    }
    return sw(ISO_SW.claNotSupported);
  }

  // ---- ISO 7816-4 commands (NT4H2421Gx section 10, ISO/IEC 7816-4 support) ----

  #iso(c: Buffer): Buffer {
    const ins = c[1]!;
    const p1 = c[2]!;
    const p2 = c[3]!;
    // An ISO command ends a pending multi-frame exchange (data sheet: chained commands are aborted).
    this.#pending = null;
    const body = isoBody(c);
    if (body === null) return sw(ISO_SW.wrongLength);
    switch (ins) {
      case 0xa4: {
        if (p1 === 0x04) {
          if (!body.data.equals(NDEF_APPLICATION_DF_NAME)) return sw(ISO_SW.fileNotFound);
          this.#selectApp();
          return sw(ISO_SW.ok);
        }
        if (p1 === 0x00 || p1 === 0x02) {
          if (body.data.length !== 2) return sw(ISO_SW.wrongLength);
          const id = body.data.readUInt16BE(0);
          if (id === NDEF_APPLICATION_FILE_ID || id === 0x3f00) {
            this.#selectApp();
            return sw(ISO_SW.ok);
          }
          const no = FILE_BY_ID[id];
          if (no === undefined || !this.#appSelected) return sw(ISO_SW.fileNotFound);
          this.#selectedFile = no;
          return sw(ISO_SW.ok);
        }
        return sw(ISO_SW.wrongParameters);
      }
      case 0xb0: {
        if (this.#selectedFile === null) return sw(ISO_SW.conditionsNotSatisfied);
        if ((p1 & 0x80) !== 0) return sw(ISO_SW.wrongParameters);
        const offset = (p1 << 8) | p2;
        const file = this.#files[this.#selectedFile]!;
        if (!this.#isoAccess(file, 'read')) return sw(ISO_SW.securityNotSatisfied);
        const content = this.#selectedFile === FILES.ndef.no ? this.#readNdefDynamic() : file.data;
        if (offset > content.length) return sw(ISO_SW.wrongOffset);
        const want = body.le === null ? 0 : body.le === 0 ? 256 : body.le;
        return sw(ISO_SW.ok, content.subarray(offset, Math.min(content.length, offset + (want === 0 ? 256 : want))));
      }
      case 0xd6: {
        if (this.#selectedFile === null) return sw(ISO_SW.conditionsNotSatisfied);
        if ((p1 & 0x80) !== 0) return sw(ISO_SW.wrongParameters);
        const offset = (p1 << 8) | p2;
        const file = this.#files[this.#selectedFile]!;
        if (!this.#isoAccess(file, 'write')) return sw(ISO_SW.securityNotSatisfied);
        if (body.data.length === 0) return sw(ISO_SW.wrongLength);
        if (offset + body.data.length > file.data.length) return sw(ISO_SW.wrongOffset);
        this.#store(file, offset, body.data);
        return sw(ISO_SW.ok);
      }
      default:
        return sw(ISO_SW.insNotSupported);
    }
  }

  #selectApp(): void {
    this.#appSelected = true;
    this.#selectedFile = null;
    this.#auth = null;
    this.#dynamicNdef = null;
  }

  /** ISO commands carry no secure messaging: free access, or a plain file and the right key. */
  #isoAccess(file: FileState, op: 'read' | 'write'): boolean {
    const a = file.config.access;
    const nibbles = op === 'read' ? [a.read, a.readWrite] : [a.write, a.readWrite];
    if (nibbles.includes(FREE)) return true;
    return this.#auth !== null && file.config.commMode === 'plain' && nibbles.includes(this.#auth.keyNo);
  }

  /** Writes, or with a tear fault writes half and lets transmit() report the removal. */
  #store(file: FileState, offset: number, data: Buffer): void {
    const part = this.#tearNext ? data.subarray(0, Math.floor(data.length / 2)) : data;
    part.copy(file.data, offset);
    if (file === this.#files[FILES.ndef.no]) this.#dynamicNdef = null;
  }

  // ---- native commands (NT4H2421Gx section 10) ----

  #native(c: Buffer): Buffer {
    const ins = c[1]!;
    if (c[2] !== 0 || c[3] !== 0) return sw(SW.parameterError);
    let data: Buffer;
    if (c.length === 5) data = Buffer.alloc(0);
    else if (c.length >= 7 && c[4]! === c.length - 6 && c[c.length - 1] === 0x00) data = c.subarray(5, 5 + c[4]!);
    else return sw(SW.lengthError);

    const pending = this.#pending;
    this.#pending = null;
    if (ins === INS.additionalFrame) {
      if (pending === null) return sw(SW.commandAborted);
      return this.#guard(() => (pending.kind === 'auth' ? this.#authPart2(pending, data) : this.#versionNext(pending)));
    }
    if (pending !== null) {
      // A new command while the PICC expects AF: the exchange is aborted (and with it any session).
      this.#auth = null;
      return sw(SW.commandAborted);
    }
    return this.#guard(() => {
      switch (ins) {
        case INS.getVersion:
          return this.#versionNext({ kind: 'version', step: 0 }, data);
        case INS.authenticateEv2First:
        case INS.authenticateEv2NonFirst:
          return this.#authPart1(ins === INS.authenticateEv2First, data);
        case INS.readSig:
          return this.#readSig(data);
        case INS.getCardUid:
          return this.#getCardUid(data);
        case INS.getFileSettings:
          return this.#getFileSettings(data);
        case INS.changeFileSettings:
          return this.#changeFileSettings(data);
        case INS.changeKey:
          return this.#changeKey(data);
        case INS.getKeyVersion:
          return this.#getKeyVersion(data);
        case INS.writeData:
          return this.#writeData(data);
        case INS.readData:
          return this.#readData(data);
        case INS.getFileCounters:
          return this.#getFileCounters(data);
        case INS.setConfiguration:
          return this.#setConfiguration(data);
        case INS.getTtStatus:
          if (this.#tamper === null) throw new Status(SW.illegalCommand);
          return this.#getTtStatus(data);
        default:
          throw new Status(SW.illegalCommand);
      }
    });
  }

  /**
   * Runs a handler; an error status ends the authenticated session (the PICC answers errors in
   * plain and resets its authentication state, so the host must authenticate again).
   */
  #guard(handler: () => Buffer): Buffer {
    try {
      return handler();
    } catch (e) {
      if (!(e instanceof Status)) throw e;
      this.#auth = null;
      return sw(e.sw);
    }
  }

  #requireApp(): void {
    if (!this.#appSelected) throw new Status(SW.permissionDenied);
  }

  #requireAuth(): Auth {
    if (this.#auth === null) throw new Status(SW.permissionDenied);
    return this.#auth;
  }

  /**
   * Unwraps a command in `mode` inside the session: checks the MAC (INTEGRITY_ERROR when wrong)
   * and decrypts Full data (padding must be method 2). Returns the plain command data after header.
   */
  #unwrap(auth: Auth, ins: number, data: Buffer, headerLen: number, mode: CommMode): { header: Buffer; body: Buffer } {
    if (data.length < headerLen) throw new Status(SW.lengthError);
    const header = data.subarray(0, headerLen);
    if (mode === 'plain') return { header, body: data.subarray(headerLen) };
    if (data.length < headerLen + 8) throw new Status(SW.lengthError);
    const enc = data.subarray(headerLen, data.length - 8);
    const mac = data.subarray(data.length - 8);
    const s = auth.session;
    if (!timingSafeEqual(s.commandMac(ins, header, enc), mac)) throw new Status(SW.integrityError);
    if (mode === 'mac' || enc.length === 0) return { header, body: enc };
    if (enc.length % 16 !== 0) throw new Status(SW.lengthError);
    const plain = s.decryptCommandData(enc);
    if (plain === null) throw new Status(SW.integrityError);
    return { header, body: plain };
  }

  /** Answers 9100 inside the session in `mode` and advances CmdCtr. */
  #reply(auth: Auth, mode: CommMode, data: Uint8Array = Buffer.alloc(0)): Buffer {
    const s = auth.session;
    let out: Buffer;
    if (mode === 'plain') out = Buffer.from(data);
    else {
      const body = mode === 'full' && data.length > 0 ? s.encryptResponseData(data) : Buffer.from(data);
      out = Buffer.concat([body, s.responseMac(0x00, body)]);
    }
    s.cmdCtr = (s.cmdCtr + 1) & 0xffff;
    return sw(SW.ok, out);
  }

  // GetVersion: three frames (HW, SW, UID/batch/production), NT4H2421Gx 10.5.2.
  #versionNext(p: { kind: 'version'; step: number }, data?: Buffer): Buffer {
    if (p.step === 0 && data !== undefined && data.length !== 0) throw new Status(SW.lengthError);
    if (p.step === 0) {
      this.#pending = { kind: 'version', step: 1 };
      const subtype = this.protocol === 'ntag_424_dna_tag_tamper' ? 0x08 : 0x02;
      return sw(SW.additionalFrame, Buffer.from([0x04, 0x04, subtype, 0x30, 0x00, 0x11, 0x05]));
    }
    if (p.step === 1) {
      this.#pending = { kind: 'version', step: 2 };
      return sw(SW.additionalFrame, Buffer.from([0x04, 0x04, 0x02, 0x01, 0x02, 0x11, 0x05]));
    }
    return sw(SW.ok, Buffer.concat([this.uid, this.#batch, Buffer.from([0x20, 0x26])]));
  }

  // AuthenticateEV2First / NonFirst (NT4H2421Gx section 10, authentication commands).
  #authPart1(first: boolean, data: Buffer): Buffer {
    this.#requireApp();
    if (first ? data.length < 2 || data.length !== 2 + data[1]! : data.length !== 1) throw new Status(SW.lengthError);
    const keyNo = data[0]!;
    if (keyNo >= KEY_COUNT) throw new Status(SW.noSuchKey);
    // PCDCap2.1 bit 1 asks for LRP: an AES chip refuses it, an LRP chip refuses anything else.
    const wantsLrp = first && data[1]! > 0 && (data[2]! & 0x02) !== 0;
    if (first && wantsLrp !== this.#lrp) throw new Status(SW.permissionDenied);
    if (!first && this.#auth === null) throw new Status(SW.permissionDenied);
    const rndB = this.#random(16);
    const pcdCap2 = Buffer.alloc(6);
    if (first) data.subarray(2, 8).copy(pcdCap2);
    this.#pending = { kind: 'auth', keyNo, rndB, first, lrp: this.#lrp, pcdCap2 };
    if (first) this.#auth = null;
    // LRP: AuthMode 01 and RndB in clear; AES: E(Kx, RndB).
    if (this.#lrp) return sw(SW.additionalFrame, Buffer.concat([Buffer.from([0x01]), rndB]));
    return sw(SW.additionalFrame, aesCbcEncrypt(this.#keys[keyNo]!, Buffer.alloc(16), rndB));
  }

  #authPart2(p: Extract<Pending, { kind: 'auth' }>, data: Buffer): Buffer {
    if (data.length !== 32) throw new Status(SW.lengthError);
    const key = this.#keys[p.keyNo]!;
    if (p.lrp) return this.#authPart2Lrp(p, key, data);
    const plain = aesCbcDecrypt(key, Buffer.alloc(16), data);
    const rndA = plain.subarray(0, 16);
    if (!timingSafeEqual(plain.subarray(16, 32), rotl1(p.rndB))) throw new Status(SW.authenticationError);
    const keys = ev2SessionKeys(key, rndA, p.rndB);
    if (p.first) {
      const ti = this.#random(4);
      this.#auth = { keyNo: p.keyNo, session: new Ev2Session(keys, ti, 0) };
      const resp = Buffer.concat([ti, rotl1(rndA), Buffer.alloc(6), Buffer.alloc(6)]);
      return sw(SW.ok, aesCbcEncrypt(key, Buffer.alloc(16), resp));
    }
    const running = this.#auth!;
    this.#auth = { keyNo: p.keyNo, session: running.session.rekey(keys) };
    return sw(SW.ok, aesCbcEncrypt(key, Buffer.alloc(16), rotl1(rndA)));
  }

  // AuthenticateLRPFirst / NonFirst part 2.
  #authPart2Lrp(p: Extract<Pending, { kind: 'auth' }>, key: Buffer, data: Buffer): Buffer {
    const rndA = data.subarray(0, 16);
    const master = lrpSessionMaster(key, lrpSessionVector(rndA, p.rndB));
    const lrp = new Lrp(master);
    if (!timingSafeEqual(lrp.cmac(Buffer.concat([rndA, p.rndB]), 0), data.subarray(16, 32))) throw new Status(SW.authenticationError);
    if (!p.first) {
      const running = this.#auth!.session;
      if (!(running instanceof LrpSession)) throw new Status(SW.authenticationError);
      this.#auth = { keyNo: p.keyNo, session: running.rekeyLrp(master) };
      return sw(SW.ok, lrp.cmac(Buffer.concat([p.rndB, rndA]), 0));
    }
    const ti = this.#random(4);
    const pdCap2 = Buffer.from([0x02, 0, 0, 0, 0, 0]);
    const piccData = lrp.encrypt(1, Buffer.alloc(4), Buffer.concat([ti, pdCap2, p.pcdCap2]), false).ciphertext;
    this.#auth = { keyNo: p.keyNo, session: new LrpSession(master, ti, 0, 1) };
    return sw(SW.ok, Buffer.concat([piccData, lrp.cmac(Buffer.concat([p.rndB, rndA, piccData]), 0)]));
  }

  // SetConfiguration, key 0, Full: option 05 switches to LRP for good (PDCap2.1 bit 1);
  // option 00 (random ID and other PICC flags) is accepted and has no effect on this emulator.
  #setConfiguration(data: Buffer): Buffer {
    this.#requireApp();
    const auth = this.#requireAuth();
    if (auth.keyNo !== 0) throw new Status(SW.permissionDenied);
    const { header, body } = this.#unwrap(auth, INS.setConfiguration, data, 1, 'full');
    const option = header[0]!;
    if (option === 0x05) {
      if (body.length !== 10) throw new Status(SW.lengthError);
      if ((body[4]! & 0x02) !== 0) this.#lrp = true;
      else if (this.#lrp) throw new Status(SW.parameterError); // LRP cannot be switched off
    } else if (option === 0x00) {
      if (body.length !== 1) throw new Status(SW.lengthError);
    } else throw new Status(SW.parameterError);
    return this.#reply(auth, 'mac');
  }

  // Read_Sig: plain outside a session, Full inside.
  #readSig(data: Buffer): Buffer {
    const auth = this.#auth;
    if (auth === null) {
      if (data.length !== 1) throw new Status(SW.lengthError);
      if (data[0] !== 0x00) throw new Status(SW.parameterError);
      return sw(SW.ok, this.#signature);
    }
    const { header } = this.#unwrap(auth, INS.readSig, data, 1, 'full');
    if (header[0] !== 0x00) throw new Status(SW.parameterError);
    return this.#reply(auth, 'full', this.#signature);
  }

  #getCardUid(data: Buffer): Buffer {
    const auth = this.#requireAuth();
    this.#unwrap(auth, INS.getCardUid, data, 0, 'full');
    return this.#reply(auth, 'full', this.uid);
  }

  #getTtStatus(data: Buffer): Buffer {
    const auth = this.#requireAuth();
    this.#unwrap(auth, INS.getTtStatus, data, 0, 'full');
    const t = this.#tamper!;
    return this.#reply(auth, 'full', Buffer.from(tamperCharOf(t.permanent) + tamperCharOf(t.current), 'latin1'));
  }

  #file(no: number | undefined): FileState {
    const f = no === undefined ? undefined : this.#files[no];
    if (f === undefined) throw new Status(SW.fileNotFound);
    return f;
  }

  #getFileSettings(data: Buffer): Buffer {
    this.#requireApp();
    const auth = this.#auth;
    const { header } = auth === null ? { header: data } : this.#unwrap(auth, INS.getFileSettings, data, 1, 'mac');
    if (header.length !== 1) throw new Status(SW.lengthError);
    const f = this.#file(header[0]);
    const out = encodeGetFileSettings(f.config, f.data.length);
    return auth === null ? sw(SW.ok, out) : this.#reply(auth, 'mac', out);
  }

  // GetFileCounters: SDMReadCtr under the SDMCtrRet access right.
  #getFileCounters(data: Buffer): Buffer {
    this.#requireApp();
    const auth = this.#auth;
    const ctrRet = this.#files[FILES.ndef.no]!.config.sdm?.ctrRet ?? NEVER;
    let header: Buffer;
    let mode: CommMode = 'plain';
    if (auth !== null && auth.keyNo === ctrRet) {
      header = this.#unwrap(auth, INS.getFileCounters, data, 1, 'full').header;
      mode = 'full';
    } else if (ctrRet === FREE) header = data;
    else throw new Status(SW.permissionDenied);
    if (header.length !== 1) throw new Status(SW.lengthError);
    const f = this.#file(header[0]);
    if (f !== this.#files[FILES.ndef.no] || f.config.sdm === null) throw new Status(SW.permissionDenied);
    const out = Buffer.concat([counterLsbFirst(this.#sdmReadCtr), Buffer.alloc(2)]);
    return auth === null || mode === 'plain' ? this.#replyPlain(auth, out) : this.#reply(auth, 'full', out);
  }

  /** A plain answer; inside a session it still counts as a command (CmdCtr + 1). */
  #replyPlain(auth: Auth | null, data: Uint8Array): Buffer {
    return auth === null ? sw(SW.ok, data) : this.#reply(auth, 'plain', data);
  }

  // ChangeFileSettings: Full, authenticated with the file's Change key (or plain if free).
  #changeFileSettings(data: Buffer): Buffer {
    this.#requireApp();
    if (data.length < 1) throw new Status(SW.lengthError);
    const f = this.#file(data[0]);
    const change = f.config.access.change;
    const auth = this.#auth;
    let body: Buffer;
    if (change === FREE && auth === null) body = data.subarray(1);
    else {
      if (auth === null || change === NEVER || (change !== FREE && auth.keyNo !== change)) throw new Status(SW.permissionDenied);
      body = this.#unwrap(auth, INS.changeFileSettings, data, 1, 'full').body;
    }
    const config = decodeFileConfig(body);
    if (config === null) throw new Status(SW.parameterError);
    if (config.sdm !== null) {
      if (data[0] !== FILES.ndef.no) throw new Status(SW.parameterError);
      if (config.sdm.ttStatus && this.#tamper === null) throw new Status(SW.parameterError);
      if (sdmConfigProblem(config.sdm, f.data.length, this.#lrp ? 'lrp' : 'aes') !== null) throw new Status(SW.parameterError);
    }
    f.config = config;
    this.#dynamicNdef = null;
    return auth === null ? sw(SW.ok) : this.#reply(auth, 'mac');
  }

  // ChangeKey (NT4H2421Gx 10.6.1): Full, authenticated with key 0.
  #changeKey(data: Buffer): Buffer {
    this.#requireApp();
    const auth = this.#requireAuth();
    if (auth.keyNo !== 0) throw new Status(SW.permissionDenied);
    const { header, body } = this.#unwrap(auth, INS.changeKey, data, 1, 'full');
    const keyNo = header[0]!;
    if (keyNo >= KEY_COUNT) throw new Status(SW.noSuchKey);
    if (keyNo === auth.keyNo) {
      if (body.length !== 17) throw new Status(SW.lengthError);
      this.#keys[keyNo] = Buffer.from(body.subarray(0, 16));
      this.#keyVersions[keyNo] = body[16]!;
      // Changing the session's own key ends the session: a bare 9100, no MAC.
      this.#auth = null;
      return sw(SW.ok);
    }
    if (body.length !== 21) throw new Status(SW.lengthError);
    const newKey = Buffer.alloc(16);
    for (let i = 0; i < 16; i++) newKey[i] = body[i]! ^ this.#keys[keyNo]![i]!;
    // The CRC over the new key proves the host knew the old one (wrong old key -> integrity error).
    if (!timingSafeEqual(crc32nk(newKey), body.subarray(17, 21))) throw new Status(SW.integrityError);
    this.#keys[keyNo] = newKey;
    this.#keyVersions[keyNo] = body[16]!;
    return this.#reply(auth, 'mac');
  }

  #getKeyVersion(data: Buffer): Buffer {
    this.#requireApp();
    const auth = this.#auth;
    const { header } = auth === null ? { header: data } : this.#unwrap(auth, INS.getKeyVersion, data, 1, 'mac');
    if (header.length !== 1) throw new Status(SW.lengthError);
    if (header[0]! >= KEY_COUNT) throw new Status(SW.noSuchKey);
    const out = Buffer.from([this.#keyVersions[header[0]!]!]);
    return auth === null ? sw(SW.ok, out) : this.#reply(auth, 'mac', out);
  }

  /**
   * The mode a data command runs in: free access is plain; a key grants access only in a session
   * authenticated with that key, in the file's CommMode (NT4H2421Gx 8.2.3, access rights).
   */
  #dataMode(file: FileState, nibbles: number[]): CommMode {
    const auth = this.#auth;
    if (auth !== null && nibbles.includes(auth.keyNo)) return file.config.commMode;
    if (nibbles.includes(FREE)) return 'plain';
    throw new Status(SW.permissionDenied);
  }

  #writeData(data: Buffer): Buffer {
    this.#requireApp();
    if (data.length < 7) throw new Status(SW.lengthError);
    const f = this.#file(data[0]);
    const mode = this.#dataMode(f, [f.config.access.write, f.config.access.readWrite]);
    const auth = this.#auth;
    const { header, body } = auth === null ? { header: data.subarray(0, 7), body: data.subarray(7) } : this.#unwrap(auth, INS.writeData, data, 7, mode);
    const offset = readLe3(header, 1);
    const length = readLe3(header, 4);
    if (length !== body.length || length === 0) throw new Status(SW.lengthError);
    if (offset + length > f.data.length) throw new Status(SW.boundaryError);
    this.#store(f, offset, body);
    return auth === null ? sw(SW.ok) : this.#reply(auth, mode === 'full' ? 'mac' : mode);
  }

  #readData(data: Buffer): Buffer {
    this.#requireApp();
    if (data.length < 7) throw new Status(SW.lengthError);
    const f = this.#file(data[0]);
    const mode = this.#dataMode(f, [f.config.access.read, f.config.access.readWrite]);
    const auth = this.#auth;
    const { header } = auth === null ? { header: data } : this.#unwrap(auth, INS.readData, data, 7, mode);
    if (header.length !== 7) throw new Status(SW.lengthError);
    const offset = readLe3(header, 1);
    let length = readLe3(header, 4);
    const content = data[0] === FILES.ndef.no && auth === null ? this.#readNdefDynamic() : f.data;
    if (length === 0) length = content.length - offset;
    if (offset + length > content.length || length <= 0) throw new Status(SW.boundaryError);
    const out = content.subarray(offset, offset + length);
    return auth === null ? sw(SW.ok, out) : this.#reply(auth, mode, out);
  }

  // ---- Secure Dynamic Messaging (NT4H2421Gx 9.3; NT4H2421Tx TTStatus mirror) ----

  /**
   * The NDEF file as an unauthenticated reader sees it in this activation: with SDM on, SDMReadCtr
   * is incremented once and UID/counter (or PICCData), TTStatus, SDMENCFileData and SDMMAC are
   * mirrored over the placeholders.
   */
  #readNdefDynamic(): Buffer {
    const f = this.#files[FILES.ndef.no]!;
    const s = f.config.sdm;
    if (s === null) return f.data;
    if (this.#dynamicNdef !== null) return this.#dynamicNdef;
    const mirrorsCtr = s.ctrMirror;
    if (mirrorsCtr) {
      if (this.#sdmReadCtr >= MAX_SDM_COUNTER || (s.ctrLimit !== null && this.#sdmReadCtr >= s.ctrLimit)) {
        // The counter is exhausted: the chip no longer serves the file with SDM.
        throw new Status(ISO_SW.securityNotSatisfied);
      }
      this.#sdmReadCtr += 1;
    }
    const out = Buffer.from(f.data);
    const ctrLsb = counterLsbFirst(this.#sdmReadCtr);
    const ascii = (off: number, bytes: Uint8Array) => out.write(toHex(bytes), off, 'latin1');
    if (s.metaRead === FREE) {
      if (s.uidMirror) ascii(s.uidOffset!, this.uid);
      if (s.ctrMirror) ascii(s.ctrOffset!, Buffer.from([ctrLsb[2]!, ctrLsb[1]!, ctrLsb[0]!]));
    } else if (s.metaRead !== NEVER) {
      const plain = Buffer.alloc(16);
      let i = 0;
      plain[i++] = (s.uidMirror ? 0x80 : 0) | (s.ctrMirror ? 0x40 : 0) | (s.uidMirror ? 0x07 : 0);
      if (s.uidMirror) {
        plain.set(this.uid, i);
        i += 7;
      }
      if (s.ctrMirror) {
        plain.set(ctrLsb, i);
        i += 3;
      }
      plain.set(this.#random(16 - i), i);
      const crypto = this.#lrp ? 'lrp' : 'aes';
      ascii(s.piccDataOffset!, encryptPiccData(crypto, this.#keys[s.metaRead]!, plain, this.#lrp ? this.#random(8) : undefined));
    }
    if (s.ttStatus && this.#tamper !== null) {
      out.write(tamperCharOf(this.#tamper.permanent) + tamperCharOf(this.#tamper.current), s.ttStatusOffset!, 'latin1');
    }
    if (s.fileRead !== NEVER) {
      // Session keys need UID and counter; without both mirrored, SDMMAC is not defined here.
      if (!s.uidMirror || !s.ctrMirror) throw new Status(ISO_SW.conditionsNotSatisfied);
      const session = new SdmSession(this.#lrp ? 'lrp' : 'aes', this.#keys[s.fileRead]!, this.uid, ctrLsb);
      if (s.encFileData) {
        const plainLen = s.encLength! / 2;
        const plain = out.subarray(s.encOffset!, s.encOffset! + plainLen);
        ascii(s.encOffset!, session.encryptFileData(Buffer.from(plain)));
      }
      const macInput = out.subarray(s.macInputOffset!, s.macOffset!);
      ascii(s.macOffset!, session.mac(macInput));
    }
    this.#dynamicNdef = out;
    return out;
  }
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
