// A software NTAG 424 DNA / NTAG 424 DNA TagTamper answering ISO 7816-4 APDUs: the card's public face (making, saving, taps, the APDU exchange).
import { randomBytes } from 'node:crypto';
import { describeStatus, FILES, ISO_SW, KEY_COUNT, SW } from '../command-codes.js';
import { FREE } from '../file-settings.js';
import { parseNdefUriFile } from '../ndef.js';
import { EMULATOR_ORIGINALITY_PRIVATE_KEY, signOriginality } from '../originality.js';
import type { TamperState } from '../tamper.js';
import { factoryFiles, resetActivation, Status, sw, type CardProtocol, type Chip } from './chip.js';
import { readNdefDynamic } from './dynamic-ndef.js';
import { CardRemovedError, takeFault, type CardFault } from './faults.js';
import { isoCommand } from './iso.js';
import { nativeCommand } from './native.js';
import { loadChipState, serializeChip, stateIdentity, type CardState } from './persistence.js';

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

/**
 * The chip as the data sheet describes it (NT4H2421Gx sections 8-10, NT4H2421Tx for TagTamper): the
 * NDEF application with its three files, five AES keys with versions, AuthenticateEV2First/NonFirst,
 * EV2 secure messaging with CmdCtr and TI, ChangeKey, ChangeFileSettings with SDM, and on every tap
 * a fresh SUN message (SDMReadCtr + 1). It is the chip behind sandbox tags and the counterpart of the
 * writer's tests; it holds state in memory and serializes to JSON so the CLI can keep it between
 * runs. Pure, no I/O.
 */
export class Ntag424Card {
  readonly protocol: CardProtocol;
  readonly uid: Buffer;
  readonly #chip: Chip;
  #present = true;
  #faults: CardFault[] = [];
  /** Every C-APDU received, for tests that count round trips. */
  readonly log: Buffer[] = [];

  constructor(options: CardOptions = {}) {
    const random = options.random ?? ((n: number) => randomBytes(n));
    const protocol = options.protocol ?? 'ntag_424_dna';
    if (protocol !== 'ntag_424_dna' && protocol !== 'ntag_424_dna_tag_tamper') throw new TypeError('protocol must be ntag_424_dna or ntag_424_dna_tag_tamper');
    const uid = options.uid ?? Buffer.concat([Buffer.from([0x04]), random(6)]);
    if (uid.length !== 7) throw new TypeError('UID must be 7 bytes');
    if (options.keys !== undefined && (options.keys.length !== KEY_COUNT || options.keys.some((k) => k.length !== 16)))
      throw new TypeError('keys must be five 16-byte keys');
    if (options.signature !== undefined && options.signature.length !== 56) throw new TypeError('an originality signature is 56 bytes');
    this.protocol = protocol;
    this.uid = Buffer.from(uid);
    this.#chip = {
      protocol,
      uid: this.uid,
      keys: Array.from({ length: KEY_COUNT }, (_, i) => Buffer.from(options.keys?.[i] ?? Buffer.alloc(16))),
      keyVersions: Array.from({ length: KEY_COUNT }, (_, i) => (options.keyVersions?.[i] ?? 0) & 0xff),
      files: factoryFiles(),
      sdmReadCtr: 0,
      signature:
        options.signature !== undefined
          ? Buffer.from(options.signature)
          : signOriginality(this.uid, options.originalityKey ?? EMULATOR_ORIGINALITY_PRIVATE_KEY),
      batch: random(5),
      // The emulated TagTamper loop is enabled and closed from the factory (docs/chips.md).
      tamper: protocol === 'ntag_424_dna_tag_tamper' ? { permanent: 'closed', current: 'closed' } : null,
      lrp: options.lrp === true,
      random,
      appSelected: false,
      selectedFile: null,
      auth: null,
      pending: null,
      dynamicNdef: null,
      tearNext: false,
    };
  }

  /** True once the chip was switched to LRP. */
  get lrp(): boolean {
    return this.#chip.lrp;
  }

  // -------------------------------------------------------------------------------------------
  // Persistence

  serialize(): CardState {
    return serializeChip(this.#chip);
  }

  static deserialize(state: CardState, options: Pick<CardOptions, 'random'> = {}): Ntag424Card {
    const card = new Ntag424Card(stateIdentity(state));
    loadChipState(card.#chip, state, options.random);
    return card;
  }

  // -------------------------------------------------------------------------------------------
  // Field events

  /** A new activation in a reader's field: volatile state is reset (no selection, no session). */
  powerOn(): void {
    this.#present = true;
    resetActivation(this.#chip);
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
    const chip = this.#chip;
    if (chip.tamper === null) throw new TypeError('only an NTAG 424 DNA TagTamper has a tamper loop');
    chip.tamper = { permanent: state === 'open' ? 'open' : chip.tamper.permanent, current: state };
    return { ...chip.tamper };
  }

  get tamperStatus(): { permanent: TamperState; current: TamperState } | null {
    return this.#chip.tamper === null ? null : { ...this.#chip.tamper };
  }

  get sdmReadCtr(): number {
    return this.#chip.sdmReadCtr;
  }

  /** True while every key is still the factory key (all zero). */
  get isFactoryKeyed(): boolean {
    return this.#chip.keys.every((k) => k.every((b) => b === 0));
  }

  keyVersion(keyNo: number): number {
    return this.#chip.keyVersions[keyNo]!;
  }

  /**
   * A phone's tap: a fresh activation that reads the NDEF file, so SDM mirrors a new SUN message
   * (SDMReadCtr + 1). Returns the URL the phone would open. Throws when the file holds no URI record.
   */
  tap(): string {
    this.powerOn();
    const access = this.#chip.files[FILES.ndef.no]!.config.access;
    if (access.read !== FREE && access.readWrite !== FREE) throw new Error('a phone cannot read this chip: the NDEF file needs a key to read');
    let file: Buffer;
    try {
      file = readNdefDynamic(this.#chip);
    } catch (e) {
      if (e instanceof Status) throw new Error(`the chip refuses the read (${describeStatus(e.sw)}): SDM read counter exhausted`);
      throw e;
    } finally {
      resetActivation(this.#chip);
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
    const chip = this.#chip;
    const capdu = Buffer.from(apdu);
    this.log.push(capdu);
    const ins = capdu.length >= 2 ? capdu[1]! : -1;
    const fault = takeFault(this.#faults, ins);
    if (fault?.kind === 'remove') return this.#leave();
    if (fault?.kind === 'status') return sw(fault.sw ?? SW.commandAborted);
    if (fault?.kind === 'tear') chip.tearNext = true;
    let response: Buffer;
    try {
      response = this.#dispatch(capdu);
    } catch (e) {
      // A chip answers every frame; an unforeseen input gets "no precise diagnosis", not a crash.
      if (e instanceof CardRemovedError) throw e;
      chip.auth = null;
      chip.pending = null;
      response = sw(0x6f00);
    } finally {
      chip.tearNext = false;
    }
    if (fault?.kind === 'drop' || fault?.kind === 'tear') return this.#leave();
    return response;
  }

  #leave(): never {
    this.#present = false;
    resetActivation(this.#chip);
    throw new CardRemovedError();
  }

  #dispatch(capdu: Buffer): Buffer {
    if (capdu.length < 4) return sw(ISO_SW.wrongLength);
    const cla = capdu[0]!;
    if (cla === 0x90) return nativeCommand(this.#chip, capdu);
    if (cla === 0x00) {
      try {
        return isoCommand(this.#chip, capdu);
      } catch (e) {
        if (e instanceof Status) return sw(e.sw);
        throw e;
      }
    }
    return sw(ISO_SW.claNotSupported);
  }
}
