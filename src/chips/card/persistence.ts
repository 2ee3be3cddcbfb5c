// The card's state as JSON (hex strings), so the CLI can keep an emulated chip between runs; a state read back is checked as strictly as the chip checks its commands.
import { KEY_COUNT } from '../command-codes.js';
import { decodeFileConfig, encodeFileConfig, sdmConfigProblem, type FileConfig } from '../file-settings.js';
import { toHex } from '../hex.js';
import { MAX_SDM_COUNTER } from '../sdm.js';
import type { TamperState } from '../tamper.js';
import { factoryFiles, type CardProtocol, type Chip } from './chip.js';

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

export function serializeChip(chip: Chip): CardState {
  const files: CardState['files'] = {};
  for (const [no, f] of Object.entries(chip.files)) files[no] = { data: toHex(f.data), config: structuredClone(f.config) };
  return {
    format: 'tapproof-ntag424-card',
    version: 1,
    protocol: chip.protocol,
    uid: toHex(chip.uid),
    keys: chip.keys.map(toHex),
    keyVersions: [...chip.keyVersions],
    files,
    sdmReadCtr: chip.sdmReadCtr,
    signature: toHex(chip.signature),
    batch: toHex(chip.batch),
    tamper: chip.tamper === null ? null : { ...chip.tamper },
    lrp: chip.lrp,
  };
}

function hex(s: string, n: number, what: string): Buffer {
  if (typeof s !== 'string' || !/^[0-9A-Fa-f]*$/.test(s) || s.length !== n * 2) throw new TypeError(`card state: ${what} must be ${n} bytes of hex`);
  return Buffer.from(s, 'hex');
}

/** What a card is made with before the rest of its state is loaded: protocol, UID and signature. */
export function stateIdentity(state: CardState): { protocol: CardProtocol; uid: Buffer; signature: Buffer } {
  if (state?.format !== 'tapproof-ntag424-card' || state.version !== 1) throw new TypeError('not a tapproof NTAG 424 DNA card state (format/version)');
  return { protocol: state.protocol, uid: hex(state.uid, 7, 'uid'), signature: hex(state.signature, 56, 'signature') };
}

/** Loads keys, files, counter, batch, tamper status and crypto mode into a card made with stateIdentity(). */
export function loadChipState(chip: Chip, state: CardState, random: ((n: number) => Buffer) | undefined): void {
  if (random) chip.random = random;
  if (!Array.isArray(state.keys) || state.keys.length !== KEY_COUNT) throw new TypeError('card state: 5 keys expected');
  chip.keys = state.keys.map((k, i) => hex(k, 16, `key ${i}`));
  if (
    !Array.isArray(state.keyVersions) ||
    state.keyVersions.length !== KEY_COUNT ||
    !state.keyVersions.every((v) => Number.isInteger(v) && v >= 0 && v <= 255)
  ) {
    throw new TypeError('card state: 5 key versions (0..255) expected');
  }
  chip.keyVersions = [...state.keyVersions];
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
  chip.files = files;
  if (!Number.isInteger(state.sdmReadCtr) || state.sdmReadCtr < 0 || state.sdmReadCtr > MAX_SDM_COUNTER) throw new TypeError('card state: bad SDM counter');
  chip.sdmReadCtr = state.sdmReadCtr;
  chip.signature = hex(state.signature, 56, 'signature');
  chip.batch = hex(state.batch, 5, 'batch');
  const states = ['closed', 'open', 'not_enabled'];
  const t = state.tamper;
  if (chip.protocol === 'ntag_424_dna_tag_tamper' ? !(t && states.includes(t.permanent) && states.includes(t.current)) : t !== null) {
    throw new TypeError('card state: tamper status does not match the protocol');
  }
  chip.tamper = t === null ? null : { permanent: t.permanent, current: t.current };
  chip.lrp = state.lrp === true;
}
