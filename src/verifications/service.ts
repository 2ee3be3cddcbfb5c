// Scan verification (docs/decisions.md §5): find the tag from the scanned URL, check the
// SUN message with the chip's keys, then accept its read counter with an atomic
// compare-and-set so that one scan is genuine exactly once. Every attempt is
// stored, failed ones too; the same URL again within the tag's session_duration
// is a page reload and answers the original verification.
import { hash } from 'node:crypto';
import type { SunVerdict, Tamper } from '../chips/index.js';
import type { Kernel } from '../kernel.js';
import type { VerifyContext } from './context.js';
import { DomainError, problem, validationFailed } from '../errors.js';
import { newTimeOrderedId } from '../ids.js';
import type { World } from '../world.js';
import { pendingSdmKeysOf, sdmKeysOf, type SdmKeys } from '../tag-chips/index.js';
import { isChipsMessage, sunVerdict } from '../tag-chips/index.js';
import { readSdmPart, storedLayout, type ChipLayout, type SdmValues } from '../chips/url-layout.js';
import * as chipsRepo from '../tag-chips/index.js';
import type { ChipRow, TagWithChip } from '../tag-chips/index.js';
import * as verificationsRepo from './repository.js';
import type { VerificationRow } from './repository.js';
import { fieldProblems } from '../http/field-rules.js';
import { ATTRIBUTES } from './rules.js';
import { candidateTagUrls, sdmShapeProblem } from './scan-url.js';
import type { Scan } from './decide.js';
import { signalsOf } from '../signals/index.js';

export type Reason = 'ok' | 'replayed' | 'bad_cmac' | 'bad_picc_data' | 'uid_mismatch';

export interface ScanRequest {
  url: unknown;
  client_ip?: unknown;
  /** The HTTP client's address, when TAPPROOF_TRUST_PROXY makes it the scanning phone's (docs/api.md, country). */
  forwardedFor?: string | null;
}

const badUrl = (detail: string) => validationFailed([problem('url', detail)]);

/** The contract's 404 for a scan no tag answers for, saying where the url was looked for. */
const noConfiguredTag = () =>
  new DomainError('NotFound', [], undefined, "no configured tag of this key's team and mode has this url (a sandbox key sees sandbox tags only)");

const layouts = new WeakMap<ChipRow, ChipLayout>();
function layoutOf(chip: ChipRow): ChipLayout {
  let layout = layouts.get(chip);
  if (!layout) {
    layout = storedLayout(chip);
    layouts.set(chip, layout);
  }
  return layout;
}

// Configured tags never change url nor go away (a configured tag cannot be deleted),
// and their chip's keys and layout change only with a new write generation, which the
// counter compare-and-set checks. So a scan's lookup is cached in the process once
// found (ctx.scanLookups, bounded); a miss always asks the database (a tag may have just been configured).
const lookupKey = (world: World, url: string) => `${world.teamId} ${world.mode} ${url}`;

function accept(tag: TagWithChip, scanned: string, sdmStart: number): { tag: TagWithChip; chip: ChipRow; sdm: SdmValues } | null {
  const sdm = readSdmPart(layoutOf(tag.chip!), scanned, sdmStart);
  if (sdm === null) return null;
  const problem = sdmShapeProblem(tag.chip!.mirroring, tag.chip!.crypto, sdm);
  if (problem !== null) throw badUrl(problem);
  return { tag, chip: tag.chip!, sdm };
}

type Located = { tag: TagWithChip; chip: ChipRow; sdm: SdmValues; cached?: true };
type Checked = { tag: TagWithChip; chip: ChipRow; verdict: SunVerdict };

/**
 * The tag the scan belongs to and its SDM values; 404 / 422 (docs/api.md, verifications). A tag in the
 * process's cache is answered in the same turn; a throw is the caller's rejection (it awaits it).
 */
function locate(ctx: VerifyContext, world: World, scanned: string, fromCache = true): Located | Promise<Located> {
  const candidates = candidateTagUrls(scanned);
  if (candidates.length === 0) throw badUrl('url carries no SDM parameters');
  // The longest matching url is the most specific tag; a tag url may itself have a query.
  if (fromCache) {
    for (let i = candidates.length - 1; i >= 0; i--) {
      const candidate = candidates[i]!;
      const cached = ctx.scanLookups.get(lookupKey(world, candidate.url));
      const found = cached && accept(cached, scanned, candidate.sdmStart);
      if (found) return { tag: found.tag, chip: found.chip, sdm: found.sdm, cached: true };
    }
  }
  return locateStored(ctx, world, scanned, candidates);
}

async function locateStored(ctx: VerifyContext, world: World, scanned: string, candidates: { url: string; sdmStart: number }[]): Promise<Located> {
  const longestFirst = [...candidates].reverse();
  const tags = await chipsRepo.findTagsByUrls(ctx.db.kysely, world, [scanned, ...candidates.map((c) => c.url)]);
  if (tags.some((t) => t.url === scanned)) throw badUrl('url carries no SDM parameters');
  if (tags.length === 0) throw noConfiguredTag();
  const byUrl = new Map(tags.map((t) => [t.url, t]));
  let configuredMatch = false;
  for (const candidate of longestFirst) {
    const tag = byUrl.get(candidate.url);
    if (!tag || tag.status !== 'configured' || tag.chip === null) continue;
    configuredMatch = true;
    ctx.scanLookups.set(lookupKey(world, tag.url), tag);
    const found = accept(tag, scanned, candidate.sdmStart);
    if (found) return found;
  }
  // A scan against a tag that is not configured is 404 (docs/api.md, verifications).
  if (!configuredMatch) throw noConfiguredTag();
  throw badUrl("url's SDM parameters are not the ones this tag's chip writes");
}

/**
 * The SUN message checked with the chip's committed keys; for a chip whose rekey is under way, when those
 * do not verify it, with the pending keys too, and with the pending meta read key beside the committed file
 * read key (and the reverse): a rekey cut between its ChangeKeys leaves the chip holding such a pair.
 * With the chip's keys cached and its message verified, answered in the same turn.
 */
function check(ctx: VerifyContext, chip: ChipRow, tt: boolean, sdm: SdmValues): SunVerdict | Promise<SunVerdict> {
  const keys = sdmKeysOf(ctx, chip);
  if (keys instanceof Promise) return keys.then((known) => checkWith(ctx, chip, tt, sdm, known));
  return checkWith(ctx, chip, tt, sdm, keys);
}

function checkWith(ctx: VerifyContext, chip: ChipRow, tt: boolean, sdm: SdmValues, keys: SdmKeys): SunVerdict | Promise<SunVerdict> {
  const verdict = sunVerdict(chip, keys, tt, sdm);
  return isChipsMessage(verdict, chip) ? verdict : checkWithPending(ctx, chip, tt, sdm, keys, verdict);
}

async function checkWithPending(ctx: VerifyContext, chip: ChipRow, tt: boolean, sdm: SdmValues, keys: SdmKeys, verdict: SunVerdict): Promise<SunVerdict> {
  const pending = await pendingSdmKeysOf(ctx, chip);
  if (pending === null) return verdict;
  const tries: SdmKeys[] = [
    pending,
    { sdmMetaReadKey: pending.sdmMetaReadKey, sdmFileReadKey: keys.sdmFileReadKey },
    { sdmMetaReadKey: keys.sdmMetaReadKey, sdmFileReadKey: pending.sdmFileReadKey },
  ];
  for (const attempt of tries) {
    const other = sunVerdict(chip, attempt, tt, sdm);
    if (isChipsMessage(other, chip)) return other;
  }
  return verdict;
}

const isTagTamper = (tag: TagWithChip) => tag.protocol === 'ntag_424_dna_tag_tamper';

/**
 * The scan's tag and chip and its verdict. A cached chip may predate a rekey another process started or
 * finished: a scan its keys refuse is checked once more against the chip as stored (a refused scan is
 * rare; a genuine one never pays this, and with its tag and keys cached is answered in the same turn).
 */
function locateAndCheck(ctx: VerifyContext, world: World, scanned: string): Checked | Promise<Checked> {
  const found = locate(ctx, world, scanned);
  if (found instanceof Promise) return found.then((known) => checkFound(ctx, world, scanned, known));
  return checkFound(ctx, world, scanned, found);
}

function checkFound(ctx: VerifyContext, world: World, scanned: string, found: Located): Checked | Promise<Checked> {
  const verdict = check(ctx, found.chip, isTagTamper(found.tag), found.sdm);
  if (verdict instanceof Promise) return verdict.then((known) => checkedOrStored(ctx, world, scanned, found, known));
  return checkedOrStored(ctx, world, scanned, found, verdict);
}

function checkedOrStored(ctx: VerifyContext, world: World, scanned: string, found: Located, verdict: SunVerdict): Checked | Promise<Checked> {
  if (!found.cached || isChipsMessage(verdict, found.chip)) return { tag: found.tag, chip: found.chip, verdict };
  return checkStored(ctx, world, scanned, found, verdict);
}

async function checkStored(ctx: VerifyContext, world: World, scanned: string, found: Located, verdict: SunVerdict): Promise<Checked> {
  const stored = await locate(ctx, world, scanned, false);
  if (!keysChanged(found.chip, stored.chip)) return { tag: found.tag, chip: found.chip, verdict };
  return { tag: stored.tag, chip: stored.chip, verdict: await check(ctx, stored.chip, isTagTamper(stored.tag), stored.sdm) };
}

/** What decides which keys a chip's scans are checked with. */
const keysChanged = (a: ChipRow, b: ChipRow): boolean =>
  a.key_version !== b.key_version ||
  a.key_source !== b.key_source ||
  a.pending_key_version !== b.pending_key_version ||
  a.master_generation !== b.master_generation ||
  a.write_generation !== b.write_generation;

/** The attribute's problems as a 422, one attribute at a time (the url is judged before the client_ip). */
function check422(name: keyof typeof ATTRIBUTES, value: unknown): void {
  const problems = fieldProblems(name, ATTRIBUTES[name], value, undefined);
  if (problems.length > 0) throw validationFailed(problems);
}

/**
 * Hands a scan to the group commit; the route passes one that keeps arrival
 * order (src/verifications/arrival-order.ts). Must call `enqueue` synchronously once it runs.
 */
export type Sequencer = <T>(enqueue: () => T) => T | Promise<T>;
const direct: Sequencer = (enqueue) => enqueue();

/** A scan's answer: the verification, and whether it is an earlier one answered again (a page reload). */
export interface ScanAnswer {
  verification: VerificationRow;
  repeat: boolean;
}

export async function verifyScan(ctx: VerifyContext, world: World, request: ScanRequest, sequence: Sequencer = direct): Promise<ScanAnswer> {
  check422('url', request.url);
  if (request.client_ip !== undefined) check422('client_ip', request.client_ip);
  const scanned = request.url as string;
  const clientIp = (request.client_ip ?? null) as string | null;
  const checked = locateAndCheck(ctx, world, scanned);
  const { tag, chip, verdict } = checked instanceof Promise ? await checked : checked;
  const at = ctx.clock.nowMicros();
  const address = clientIp ?? request.forwardedFor ?? null;
  const urlHash = hash('sha256', scanned, 'hex');
  // From the scan's client address; null for private, reserved and unknown ones (docs/operations.md, GeoIP).
  const country = address === null ? null : await ctx.countries.lookup(address);
  const limits = ctx.signalThresholds.cached(world) ?? (await ctx.signalThresholds.read(world));
  const judged = <C extends number | null>(reason: Reason, counter: C, tamper: Tamper): VerificationRow & { read_counter: C } => ({
    id: newTimeOrderedId('vrf', Math.floor(at / 1000)),
    team_id: world.teamId,
    mode: world.mode,
    tag_id: tag.id,
    scanned_at: at,
    url_hash: urlHash,
    client_ip: clientIp,
    country,
    write_generation: chip.write_generation,
    genuine: reason === 'ok' ? 1 : 0,
    reason,
    read_counter: counter,
    tamper_permanent: tamper?.permanent ?? null,
    tamper_current: tamper?.current ?? null,
    session_id: null,
    signals: null,
  });
  const scan: Scan =
    // The UID bound at the write must be the one the chip mirrored.
    verdict.uid !== undefined && verdict.uid !== chip.uid
      ? { kind: 'failed', row: judged('uid_mismatch', null, null), limits }
      : !verdict.ok
        ? { kind: 'failed', row: judged(verdict.reason, null, null), limits }
        : // Its reason, session and signals are decided by the group commit.
          { kind: 'authentic', row: judged('ok', verdict.counter, verdict.tamper), limits };
  const decided = await sequence(() => {
    // Timed at its turn, so that one tag's scans carry rising times in the order they are decided.
    scan.row.scanned_at = ctx.clock.nowMicros();
    return ctx.commits.submit<VerificationRow>(scan);
  });
  // Counted here, after the group commit: only then is an authentic scan's reason (ok or replayed) final.
  // A reload within the session answers the original verification (another id): nothing new to count.
  const repeat = decided.id !== scan.row.id;
  if (!repeat) {
    ctx.metrics.verifications.inc({ reason: decided.reason });
    for (const signal of signalsOf(decided.signals)) ctx.metrics.signals.inc({ signal });
  }
  return { verification: decided, repeat };
}

export async function getVerification(ctx: Kernel, world: World, id: string): Promise<VerificationRow> {
  const row = await verificationsRepo.findVerification(ctx.db.kysely, world, id);
  if (!row) throw new DomainError('NotFound');
  return row;
}
