// A rekey of a configured tag's chip as a server-side step machine (docs/writer.md, "Rekey"): the chip's
// application keys move to keys derived at a new key version, the chip keeps its files, its settings and
// its counter. Like a personalization (steps.ts, whose probe, authentication and answer checks it shares)
// the writer only relays the batches:
//   probe       the personalization's probe: the chip must be the one bound to the tag
//   lrp_probe   AuthenticateLRPFirst part 1 (a chip switched to LRP)
//   auth        AuthenticateEV2First (or LRPFirst) part 2 with key 0: the committed key, or the pending one
//               when a cut rekey already changed it
//   rekey       ChangeKey 1, 2, 3, 4 (each with its old key), ChangeKey 0 last, then, out of the session,
//               ISOSelectFile (application, NDEF file) and ISOReadBinary: the SUN read back under the new keys
// Key versions say what is done: a key already at the target version is skipped, so a rekey cut after any
// command is finished by a rerun. The target version is recorded by the service (chips.pending_key_version)
// before the batch with the first ChangeKey is handed out. Pure: no I/O.
import {
  authPart2,
  changeKeyApdu,
  changeKeyResponseMode,
  FILES,
  isoReadBinaryApdu,
  isoSelectFileApdu,
  KEY_SLOTS,
  lrpAuthPart1Apdu,
  lrpAuthPart2,
  parseNdefUriFile,
  restoreSession,
  selectNdefApplicationApdu,
  sessionState,
  splitResponse,
  type ChipCrypto,
  type SessionState,
} from '../chips/index.js';
import type { Protocol } from '../tags/index.js';
import type { ApplicationKeys } from '../tag-chips/index.js';
import {
  batchBuilder,
  checkAnswers,
  fail,
  openSession,
  PROBE_AUTH,
  PROBE_LENGTH,
  probeApdus,
  readProbe,
  refusedAes,
  statusText,
  type ChipKeys,
  type Expect,
  type Failed,
  ZERO_KEY,
} from './steps.js';

/** What a rekey step needs from outside: the chip as bound to the tag, its keys, the keys it moves to. */
export interface RekeyEnv {
  protocol: Protocol;
  originalityKey: Uint8Array;
  /** The UID of the chip bound to the tag. */
  uid: string;
  /** The keys the chip holds as committed. */
  committed: ApplicationKeys;
  /** The version a rekey under way recorded; null when none did. */
  pendingVersion: number | null;
  /** The keys derived at `version` (from the master the rekey uses). */
  keysAt(version: number): ChipKeys;
  /** Why the URL the chip read back is not its own SUN message under `keys`; null when it is. */
  readbackProblem(url: string, keys: ChipKeys): string | null;
}

type Key0 = 'committed' | 'pending';

export type RekeyState =
  | { step: 'probe' }
  | { step: 'lrp_probe'; uid: string; versions: number[]; key: Key0; target: number }
  | { step: 'auth'; uid: string; versions: number[]; key: Key0; target: number; crypto: ChipCrypto; rndA: string; rndB: string }
  | { step: 'rekey'; uid: string; target: number; crypto: ChipCrypto; session: SessionState; expect: Expect[] };

export type RekeyResult =
  | { kind: 'apdus'; state: RekeyState; apdus: Buffer[] }
  /** The chip holds the keys of `version` (and read back a SUN under them). */
  | { kind: 'rekeyed'; uid: string; version: number }
  | Failed;

/** ISOSelectFile of the application and of the NDEF file, ISOReadBinary of the whole file. */
const READBACK = 3;
/** Key versions are one byte on the chip. */
const MAX_KEY_VERSION = 0xff;

/** The first batch, or a refusal before any APDU: a chip that cannot be rekeyed, or one whose key 0 the server does not hold. */
export function startRekey(protocol: Protocol, committed: ApplicationKeys): RekeyResult {
  if (protocol === 'ntag_223_dna') return fail('unsupported_chip', 'an NTAG 223 DNA cannot be rekeyed by the writer');
  if (committed.appMaster === null)
    return fail('app_key_unknown', "the server does not hold the chip's application key 0 (imported without app_master_key): it cannot be rekeyed");
  return { kind: 'apdus', state: { step: 'probe' }, apdus: probeApdus() };
}

export function advanceRekey(state: RekeyState, responses: Buffer[], removed: boolean, env: RekeyEnv): RekeyResult {
  const expected = state.step === 'probe' ? PROBE_LENGTH : state.step === 'rekey' ? state.expect.length + READBACK : 1;
  if (responses.length > expected) return fail('malformed_responses', `${responses.length} responses to ${expected} commands`);
  if (removed) return fail('chip_removed', `the chip left the reader during the ${state.step} step (after ${responses.length} of ${expected} commands)`);
  switch (state.step) {
    case 'probe':
      return probed(responses, env);
    case 'lrp_probe':
      return lrpProbed(state, responses, env);
    case 'auth':
      return authenticated(state, responses, env);
    case 'rekey':
      return rekeyed(state, responses, env);
  }
}

/**
 * The version the chip moves to: the one a cut rekey recorded, else the first above the committed one that
 * none of its keys has yet, so that a key's version alone says whether it was changed.
 */
function targetVersion(env: RekeyEnv, versions: number[]): number | null {
  if (env.pendingVersion !== null) return env.pendingVersion;
  for (let v = env.committed.version + 1; v <= MAX_KEY_VERSION; v++) if (!versions.includes(v)) return v;
  return null;
}

const key0Of = (key: Key0, target: number, env: RekeyEnv): Buffer => (key === 'pending' ? env.keysAt(target).appMaster : env.committed.appMaster!);

function probed(r: Buffer[], env: RekeyEnv): RekeyResult {
  const probe = readProbe(r, env);
  if ('kind' in probe) return probe;
  const { uid, versions, part1 } = probe;
  if (uid !== env.uid) return fail('wrong_chip', `the chip in the reader is ${uid}; the tag's chip is ${env.uid}`);
  const target = targetVersion(env, versions);
  if (target === null) return fail('unsupported_chip', `chip ${uid} has no key version left above ${env.committed.version}`);
  // Key 0 is changed last: at the target version it is the pending key, else still the committed one.
  const key: Key0 = versions[0] === target ? 'pending' : 'committed';
  if (refusedAes(probe)) return { kind: 'apdus', state: { step: 'lrp_probe', uid, versions, key, target }, apdus: [lrpAuthPart1Apdu(0, true)] };
  if (part1 === null || part1.sw !== 0x91af || part1.data.length !== 16) return fail('chip_error', `AuthenticateEV2First failed: ${statusText(r[PROBE_AUTH])}`);
  const challenge = authPart2(key0Of(key, target, env), part1.data);
  const { rndA, rndB } = challenge;
  return {
    kind: 'apdus',
    state: { step: 'auth', uid, versions, key, target, crypto: 'aes', rndA: rndA.toString('hex'), rndB: rndB.toString('hex') },
    apdus: [challenge.capdu],
  };
}

function lrpProbed(state: Extract<RekeyState, { step: 'lrp_probe' }>, r: Buffer[], env: RekeyEnv): RekeyResult {
  const part1 = r[0] === undefined ? null : splitResponse(r[0]);
  const challenge = part1 === null || part1.sw !== 0x91af ? null : lrpAuthPart2(key0Of(state.key, state.target, env), part1.data);
  if (challenge === null) return fail('chip_error', `AuthenticateLRPFirst failed: ${statusText(r[0])}`);
  const { rndA, rndB } = challenge;
  return {
    kind: 'apdus',
    state: { ...state, step: 'auth', crypto: 'lrp', rndA: rndA.toString('hex'), rndB: rndB.toString('hex') },
    apdus: [challenge.capdu],
  };
}

function authenticated(state: Extract<RekeyState, { step: 'auth' }>, r: Buffer[], env: RekeyEnv): RekeyResult {
  const which = `${state.key === 'committed' ? "the chip's committed key 0" : 'the pending key 0'}${state.crypto === 'lrp' ? ' (LRP)' : ''}`;
  const part2 = r[0] === undefined ? null : splitResponse(r[0]);
  if (part2 === null || part2.sw !== 0x9100) return fail('authentication_failed', `the chip refused ${which}: ${statusText(r[0])}`);
  const session = openSession(state, key0Of(state.key, state.target, env), part2.data);
  if (session === null) return fail('authentication_failed', `the chip's answer to ${which} does not prove the key`);
  const { target, versions } = state;
  const next = env.keysAt(target);
  const { apdus, expect, add, b } = batchBuilder(session);
  // Each key is changed with its old one (the chip checks it through the CRC); a plain-mirroring imported
  // chip's key 1 is not known and not used, so it stays.
  const old = env.committed;
  const changes: [number, Buffer | null, Buffer][] = [
    [KEY_SLOTS.sdmMetaRead, old.sdmMetaRead, next.sdmMetaRead],
    [KEY_SLOTS.sdmFileRead, old.sdmFileRead, next.sdmFileRead],
    [KEY_SLOTS.appKey3, spareKey(versions[KEY_SLOTS.appKey3], old.appKey3, old.version), next.appKey3],
    [KEY_SLOTS.appKey4, spareKey(versions[KEY_SLOTS.appKey4], old.appKey4, old.version), next.appKey4],
  ];
  for (const [keyNo, from, to] of changes) {
    if (versions[keyNo] === target || from === null) continue;
    add(`ChangeKey ${keyNo}`, changeKeyApdu(b, keyNo, 0, from, to, target), changeKeyResponseMode(keyNo, 0));
  }
  if (versions[KEY_SLOTS.appMaster] !== target) {
    add('ChangeKey 0', changeKeyApdu(b, 0, 0, old.appMaster!, next.appMaster, target), changeKeyResponseMode(0, 0));
  }
  // Selecting the application again ends the session (if ChangeKey 0 did not): the read is a tap's.
  apdus.push(selectNdefApplicationApdu(), isoSelectFileApdu(FILES.ndef.id), isoReadBinaryApdu(0, FILES.ndef.size));
  return { kind: 'apdus', state: { step: 'rekey', uid: state.uid, target, crypto: state.crypto, session: sessionState(session), expect }, apdus };
}

/**
 * What key 3 or 4 holds, as its version tells: at 0 the factory key (a chip personalized before tapproof
 * changed keys 3 and 4, or an imported one whose keys 3 and 4 were never changed), at the committed version
 * the committed key when the server holds it; null (left as it is) otherwise, as an imported chip's own keys
 * 3 and 4 are: the import carried none, and no SUN uses them.
 */
function spareKey(version: number | undefined, committed: Buffer | null, committedVersion: number): Buffer | null {
  if (version === 0) return ZERO_KEY;
  return version === committedVersion ? committed : null;
}

function rekeyed(state: Extract<RekeyState, { step: 'rekey' }>, r: Buffer[], env: RekeyEnv): RekeyResult {
  const checked = checkAnswers(restoreSession(state.session), state.expect, r);
  if ('kind' in checked) return checked;
  const n = state.expect.length;
  const labels = ['ISOSelectFile (application)', 'ISOSelectFile (NDEF file)', 'ISOReadBinary'];
  for (let i = 0; i < READBACK; i++) {
    const answer = r[n + i] === undefined ? null : splitResponse(r[n + i]!);
    if (answer === null || answer.sw !== 0x9000) return fail('chip_error', `${labels[i]} failed: ${statusText(r[n + i])}`);
  }
  const url = parseNdefUriFile(splitResponse(r[n + 2]!)!.data);
  const problem = url === null ? 'the NDEF file holds no URI record' : env.readbackProblem(url, env.keysAt(state.target));
  if (problem !== null) return fail('readback_failed', `the SUN message chip ${state.uid} read back under its new keys does not verify: ${problem}`);
  return { kind: 'rekeyed', uid: state.uid, version: state.target };
}
