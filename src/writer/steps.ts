// The write of a tag onto an NTAG 424 DNA (TT) as a server-side step machine (docs/writer.md,
// docs/decisions.md §4: the platform keeps every key; the writer only relays APDUs). Each step
// answers a batch of C-APDUs the writer sends in order, stopping at the first error; the next
// step reads their R-APDUs. Commands whose bytes do not depend on an earlier answer share a
// batch, so a write takes three round trips:
//   probe        ISOSelectFile, GetVersion ×3, Read_Sig, GetKeyVersion 0..4, AuthenticateEV2First part 1
//   auth         AuthenticateEV2First part 2
//   personalize  GetTTStatus (TT), WriteData (NDEF file), ChangeFileSettings (SDM), ChangeKey 1, 2, 3, 4, then 0 last
// A chip switched to LRP (SetConfiguration option 05) refuses AuthenticateEV2First with
// PERMISSION_DENIED (NT4H2421Gx 9.2.2); that answer is how the mode is told, and costs LRP chips one
// more round trip before auth (then AuthenticateLRPFirst part 2, LRP secure messaging, an LRP SDM template):
//   lrp_probe    AuthenticateLRPFirst part 1
// Keys are changed last and their versions read first, so a write cut anywhere can be finished by a
// retry: a key already at our version is known (derived), one at 0 is the factory's.
// Pure: no I/O; the service (service.ts) keeps the state between round trips.
import {
  authFinish,
  authPart1Apdu,
  authPart2,
  changeFileSettingsApdu,
  changeKeyApdu,
  changeKeyResponseMode,
  chipProtocolOf,
  describeStatus,
  Ev2Session,
  FILES,
  getKeyVersionApdu,
  getTtStatusApdu,
  getVersionApdus,
  KEY_SLOTS,
  lrpAuthFinish,
  lrpAuthPart1Apdu,
  lrpAuthPart2,
  LrpSession,
  lrpSessionMaster,
  lrpSessionVector,
  ndefCapacityError,
  NTAG223_WRITE_UNSUPPORTED,
  parseGetKeyVersion,
  parseGetTtStatus,
  parseGetVersion,
  parseReadSig,
  readSigApdu,
  restoreSession,
  sdmFileConfig,
  sdmTemplate,
  selectNdefApplicationApdu,
  sessionState,
  splitResponse,
  SW,
  verifyOriginality,
  writeChunks,
  writeDataApdu,
  type ChipCrypto,
  type CommMode,
  type SessionState,
} from '../chips/index.js';
import type { Protocol } from '../tags/index.js';

/** Why a write failed: a code for machines and one line for people (event payload and API). */
export interface FailureReason {
  code:
    | 'url_too_long'
    | 'unsupported_chip'
    | 'protocol_mismatch'
    | 'chip_removed'
    | 'chip_error'
    | 'not_genuine'
    | 'authentication_failed'
    | 'tamper_open'
    | 'uid_bound_to_another_tag'
    | 'timeout'
    | 'tag_deleted'
    | 'aborted'
    | 'malformed_responses'
    // A rekey's own (rekey-steps.ts):
    | 'app_key_unknown'
    | 'wrong_chip'
    | 'readback_failed';
  detail: string;
}

export interface ChipKeys {
  appMaster: Buffer;
  sdmMetaRead: Buffer;
  sdmFileRead: Buffer;
  appKey3: Buffer;
  appKey4: Buffer;
  /** The version the keys are written with (chips.key_version). */
  version: number;
}

/** What a step needs from outside: the keys of a UID, the originality key, the UID binding check. */
export interface StepEnv {
  protocol: Protocol;
  url: string;
  originalityKey: Uint8Array;
  keysOf(uidHex: string): ChipKeys;
  /** How a refusal names the other tag the UID is bound to (`tag tag_…`, or another team's without its id), if any. */
  uidBoundElsewhere(uidHex: string): Promise<string | null>;
}

/**
 * An answer the personalize step checks: its MAC in `mode`; `tt` answers also carry the loop status.
 * `encCtr`: in an LRP session, the counter an encrypted answer is decrypted at (commands encrypted
 * ahead in the same batch moved the chip's counter on).
 */
export type Expect = { label: string; mode: CommMode; tt?: true; encCtr?: number };

type KeyUsed = 'factory' | 'derived';

export type WriteState =
  | { step: 'probe' }
  | { step: 'lrp_probe'; uid: string; versions: number[] }
  // `crypto` absent: aes (states sealed before LRP writes existed).
  | { step: 'auth'; uid: string; versions: number[]; key: KeyUsed; crypto?: ChipCrypto; rndA: string; rndB: string }
  | { step: 'personalize'; uid: string; crypto?: ChipCrypto; session: SessionState; expect: Expect[] };

export type StepResult =
  | { kind: 'apdus'; state: WriteState; apdus: Buffer[] }
  /** `crypto`: the chip's mode, recorded on the chip row so that its taps verify with it. */
  | { kind: 'configured'; uid: string; crypto: ChipCrypto }
  | { kind: 'failed'; reason: FailureReason };

/** The factory key: every key of a blank chip, at version 0. */
export const ZERO_KEY = Buffer.alloc(16);
/** The application's keys, 0..4: the probe reads every version, a write or a rekey changes every key. */
const APP_KEYS = 5;
/** Where the probe's GetKeyVersion answers start: after ISOSelectFile, GetVersion ×3 and Read_Sig. */
const KEY_VERSIONS_AT = 5;
/** The probe: GetKeyVersion of every key, then AuthenticateEV2First part 1. */
export const PROBE_LENGTH = KEY_VERSIONS_AT + APP_KEYS + 1;
/** Where AuthenticateEV2First part 1 sits in the probe batch (last). */
export const PROBE_AUTH = PROBE_LENGTH - 1;
/** GetTTStatus answers TTPermStatus || TTCurrStatus, encrypted in a session. */
const TT_STATUS_LENGTH = 2;

export type Failed = { kind: 'failed'; reason: FailureReason };
export const fail = (code: FailureReason['code'], detail: string): Failed => ({ kind: 'failed', reason: { code, detail } });

export function statusText(rapdu: Uint8Array | undefined): string {
  const r = rapdu === undefined ? null : splitResponse(rapdu);
  return r === null ? 'no answer' : describeStatus(r.sw);
}

/** The first step, or a failure before any APDU (a url too long for the chip, an NTAG 223 DNA). */
export function startWrite(protocol: Protocol, url: string): StepResult {
  if (protocol === 'ntag_223_dna') return fail('unsupported_chip', NTAG223_WRITE_UNSUPPORTED);
  const capacity = ndefCapacityError(protocol, url);
  if (capacity !== null) return fail('url_too_long', capacity);
  return { kind: 'apdus', state: { step: 'probe' }, apdus: probeApdus() };
}

/**
 * The writer's answers to the last batch → the next batch, or the end. `responses` holds one
 * R-APDU per C-APDU sent; fewer when the writer stopped (an error status, or `removed`: the card left).
 */
export async function advance(state: WriteState, responses: Buffer[], removed: boolean, env: StepEnv): Promise<StepResult> {
  const expected = state.step === 'probe' ? PROBE_LENGTH : state.step === 'personalize' ? state.expect.length : 1;
  if (responses.length > expected) return fail('malformed_responses', `${responses.length} responses to ${expected} commands`);
  if (removed) return fail('chip_removed', `the chip left the reader during the ${state.step} step (after ${responses.length} of ${expected} commands)`);
  switch (state.step) {
    case 'probe':
      return probe(responses, env);
    case 'lrp_probe':
      return lrpProbed(state, responses, env);
    case 'auth':
      return authenticate(state, responses, env);
    case 'personalize':
      return personalized(state, responses);
  }
}

/** What the probe batch tells of a chip: its UID, the versions of keys 0..4, and AuthenticateEV2First part 1's answer. */
export interface Probed {
  uid: string;
  versions: number[];
  part1: { sw: number; data: Buffer } | null;
}

/** The probe batch's answers read and checked for any operation: a 424 of the tag's protocol, genuine, its key versions. */
export function readProbe(r: Buffer[], env: Pick<StepEnv, 'protocol' | 'originalityKey'>): Probed | Failed {
  const select = r[0] === undefined ? null : splitResponse(r[0]);
  if (select === null || select.sw !== 0x9000) return fail('unsupported_chip', `the chip has no NDEF application: ISOSelectFile answered ${statusText(r[0])}`);
  const version = r.length >= 4 ? parseGetVersion(r.slice(1, 4)) : null;
  if (version === null) return fail('unsupported_chip', `GetVersion failed: ${statusText(r[Math.min(r.length - 1, 3)])}`);
  const chip = chipProtocolOf(version);
  if (chip === null) return fail('unsupported_chip', 'the chip is not an NTAG 424 DNA or NTAG 424 DNA TagTamper');
  if (chip !== env.protocol) return fail('protocol_mismatch', `the chip is an ${chip} but the tag's protocol is ${env.protocol}`);
  const uid = version.uid.toString('hex').toUpperCase();
  const signature = r[4] === undefined ? null : parseReadSig(r[4], null);
  if (signature === null) return fail('chip_error', `Read_Sig failed: ${statusText(r[4])}`);
  if (!verifyOriginality(version.uid, signature, env.originalityKey))
    return fail('not_genuine', `the originality signature of chip ${uid} does not verify: not genuine NXP silicon`);
  const versions: number[] = [];
  for (let k = 0; k < APP_KEYS; k++) {
    const answer = r[KEY_VERSIONS_AT + k];
    const v = answer === undefined ? null : parseGetKeyVersion(answer, null);
    if (v === null) return fail('chip_error', `GetKeyVersion ${k} failed: ${statusText(answer)}`);
    versions.push(v);
  }
  return { uid, versions, part1: r[PROBE_AUTH] === undefined ? null : splitResponse(r[PROBE_AUTH]) };
}

/** The probe batch of every operation (PROBE_LENGTH commands). */
export function probeApdus(): Buffer[] {
  return [
    selectNdefApplicationApdu(),
    ...getVersionApdus(),
    readSigApdu(null),
    ...Array.from({ length: APP_KEYS }, (_, k) => getKeyVersionApdu(null, k)),
    authPart1Apdu(0, true),
  ];
}

/** A chip switched to LRP refuses AES authentication (NT4H2421Gx 9.2.2). */
export const refusedAes = (p: Probed): boolean => p.part1 !== null && p.part1.sw === SW.permissionDenied;

async function probe(r: Buffer[], env: StepEnv): Promise<StepResult> {
  const probed = readProbe(r, env);
  if ('kind' in probed) return probed;
  const { uid, versions } = probed;
  const other = await env.uidBoundElsewhere(uid);
  if (other !== null) return fail('uid_bound_to_another_tag', `chip ${uid} is already bound to ${other}`);
  const keys = env.keysOf(uid);
  const foreign = versions.findIndex((v) => v !== 0 && v !== keys.version);
  if (foreign >= 0) return fail('authentication_failed', `key ${foreign} of chip ${uid} has version ${versions[foreign]}: the chip was personalized elsewhere`);
  const part1 = probed.part1;
  // An LRP chip refuses AES authentication: ask again in LRP, with the longer LRP template checked first.
  if (refusedAes(probed)) {
    const capacity = ndefCapacityError(env.protocol, env.url, 'lrp');
    if (capacity !== null) return fail('url_too_long', `chip ${uid} is in LRP mode: ${capacity}`);
    return { kind: 'apdus', state: { step: 'lrp_probe', uid, versions }, apdus: [lrpAuthPart1Apdu(0, true)] };
  }
  if (part1 === null || part1.sw !== 0x91af || part1.data.length !== 16) return fail('chip_error', `AuthenticateEV2First failed: ${statusText(r[PROBE_AUTH])}`);
  const key = keyUsed(versions);
  const challenge = authPart2(key0Of(key, keys), part1.data);
  return {
    kind: 'apdus',
    state: { step: 'auth', uid, versions, key, rndA: challenge.rndA.toString('hex'), rndB: challenge.rndB.toString('hex') },
    apdus: [challenge.capdu],
  };
}

/** Key 0 is the factory's until a write changed it (then at tapproof's version: derived). */
const keyUsed = (versions: number[]): KeyUsed => (versions[0] === 0 ? 'factory' : 'derived');
const key0Of = (key: KeyUsed, keys: ChipKeys): Buffer => (key === 'factory' ? ZERO_KEY : keys.appMaster);

/** AuthenticateLRPFirst part 1 answered (AuthMode 01 || RndB in clear) → part 2. */
function lrpProbed(state: Extract<WriteState, { step: 'lrp_probe' }>, r: Buffer[], env: StepEnv): StepResult {
  const part1 = r[0] === undefined ? null : splitResponse(r[0]);
  const key = keyUsed(state.versions);
  const challenge = part1 === null || part1.sw !== 0x91af ? null : lrpAuthPart2(key0Of(key, env.keysOf(state.uid)), part1.data);
  if (challenge === null) return fail('chip_error', `AuthenticateLRPFirst failed: ${statusText(r[0])}`);
  return {
    kind: 'apdus',
    state: {
      step: 'auth',
      uid: state.uid,
      versions: state.versions,
      key,
      crypto: 'lrp',
      rndA: challenge.rndA.toString('hex'),
      rndB: challenge.rndB.toString('hex'),
    },
    apdus: [challenge.capdu],
  };
}

/** The session the part 2 answer opens, in the chip's mode; null when the answer does not prove the key. */
export function openSession(state: { crypto?: ChipCrypto; rndA: string; rndB: string }, key0: Buffer, part2Data: Buffer): Ev2Session | null {
  const rndA = Buffer.from(state.rndA, 'hex');
  const rndB = Buffer.from(state.rndB, 'hex');
  if (state.crypto === 'lrp') {
    const master = lrpSessionMaster(key0, lrpSessionVector(rndA, rndB));
    const done = lrpAuthFinish({ capdu: Buffer.alloc(0), rndA, rndB, master }, part2Data, true);
    return done === null || done.ti === null ? null : LrpSession.first(done);
  }
  const auth = authFinish(key0, { capdu: Buffer.alloc(0), rndA, rndB }, part2Data, true);
  return auth === null || auth.ti === null ? null : new Ev2Session(auth, auth.ti);
}

function authenticate(state: Extract<WriteState, { step: 'auth' }>, r: Buffer[], env: StepEnv): StepResult {
  const keys = env.keysOf(state.uid);
  const crypto = state.crypto ?? 'aes';
  const part2 = r[0] === undefined ? null : splitResponse(r[0]);
  const which = `${state.key === 'factory' ? 'the factory key 0' : "tapproof's key 0"}${crypto === 'lrp' ? ' (LRP)' : ''}`;
  if (part2 === null || part2.sw !== 0x9100) return fail('authentication_failed', `the chip refused ${which}: ${statusText(r[0])}`);
  const session = openSession(state, key0Of(state.key, keys), part2.data);
  if (session === null) return fail('authentication_failed', `the chip's answer to ${which} does not prove the key`);
  // Commands are built ahead; the real session checks the answers later in the same order.
  const { b, apdus, expect, add } = batchBuilder(session);
  // A TagTamper chip whose loop was ever opened would report open from its first tap: read the loop
  // first (the answer is checked with the rest; ChangeKey 0 ends the session, so it cannot come last).
  if (env.protocol === 'ntag_424_dna_tag_tamper') {
    add('GetTTStatus', getTtStatusApdu(b), 'full', true);
    if (b instanceof LrpSession) b.skipEncrypted(TT_STATUS_LENGTH);
  }
  const template = sdmTemplate(env.protocol, env.url, { crypto });
  for (const chunk of writeChunks(template.file, 'plain'))
    add(`WriteData at ${chunk.offset}`, writeDataApdu(b, FILES.ndef.no, chunk.offset, chunk.data, 'plain'), 'plain');
  add('ChangeFileSettings', changeFileSettingsApdu(b, FILES.ndef.no, sdmFileConfig(env.protocol, template)), 'mac');
  const targets: [number, Buffer][] = [
    [KEY_SLOTS.sdmMetaRead, keys.sdmMetaRead],
    [KEY_SLOTS.sdmFileRead, keys.sdmFileRead],
    [KEY_SLOTS.appKey3, keys.appKey3],
    [KEY_SLOTS.appKey4, keys.appKey4],
    [KEY_SLOTS.appMaster, keys.appMaster],
  ];
  for (const [keyNo, key] of targets) {
    if (state.versions[keyNo] === keys.version) continue;
    add(`ChangeKey ${keyNo}`, changeKeyApdu(b, keyNo, 0, ZERO_KEY, key, keys.version), changeKeyResponseMode(keyNo, 0));
  }
  return { kind: 'apdus', state: { step: 'personalize', uid: state.uid, crypto, session: sessionState(session), expect }, apdus };
}

/**
 * Checks a batch's answers in its session, in order (MACs, and in LRP the EncCtr each was encrypted at):
 * the failure naming the first command whose answer does not hold, or the TT loop GetTTStatus read.
 */
export function checkAnswers(session: Ev2Session, expect: Expect[], r: Buffer[]): Failed | { loop: { permanent: string; current: string } | null } {
  let loop: { permanent: string; current: string } | null = null;
  for (const [i, { label, mode, tt, encCtr }] of expect.entries()) {
    const rapdu = r[i];
    if (session instanceof LrpSession && encCtr !== undefined) session.encCtr = encCtr;
    const ok = rapdu !== undefined && (tt ? (loop = parseGetTtStatus(rapdu, session)) !== null : session.checkResponse(rapdu, mode) !== null);
    if (!ok) return fail('chip_error', `${label} failed: ${statusText(rapdu)}`);
  }
  return { loop };
}

/** Builds a batch ahead on a copy of `session` whose CmdCtr (and in LRP EncCtr) advances as the chip's will. */
export function batchBuilder(session: Ev2Session) {
  const b = restoreSession(sessionState(session));
  const apdus: Buffer[] = [];
  const expect: Expect[] = [];
  const add = (label: string, apdu: Buffer, mode: CommMode, tt?: true) => {
    apdus.push(apdu);
    const e: Expect = tt ? { label, mode, tt } : { label, mode };
    if (b instanceof LrpSession && mode === 'full') e.encCtr = b.encCtr;
    expect.push(e);
    b.cmdCtr = (b.cmdCtr + 1) & 0xffff;
  };
  return { b, apdus, expect, add };
}

function personalized(state: Extract<WriteState, { step: 'personalize' }>, r: Buffer[]): StepResult {
  const checked = checkAnswers(restoreSession(state.session), state.expect, r);
  if ('kind' in checked) return checked;
  const { loop } = checked;
  if (loop !== null && (loop.permanent !== 'C' || loop.current !== 'C')) {
    return fail(
      'tamper_open',
      `the tamper loop of chip ${state.uid} is not intact (permanent ${loop.permanent}, current ${loop.current}): a TagTamper chip must be closed and never opened`,
    );
  }
  return { kind: 'configured', uid: state.uid, crypto: state.crypto ?? 'aes' };
}
