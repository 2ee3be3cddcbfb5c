// Remote personalization (docs/writer.md): a write of a `created` tag onto a chip, one round trip at a
// time. The steps and all cryptography are in steps.ts; this keeps their state in writer_sessions
// (SQL in repository.ts) and ends a write in one transaction with its tag: configured (chip row,
// tag.configured) or failed (tag.configuration_failed with the reason; the tag stays `created` and
// can be written again). Statements per write are counted (docs/writer.md): a request reads its
// write and tag together, and a round trip is claimed by the same UPDATE that stores its outcome.
import { CURRENT_KEY_VERSION, deriveChipKeys, teamMetaReadKey } from '../master-keys/index.js';
import { modeMaster, type MastersState } from '../master-keys/index.js';
import type { ChipCrypto } from '../chips/index.js';
import type { Kernel } from '../kernel.js';
import { isUniqueViolation, type Executor } from '../db/database.js';
import { inTransaction } from '../db/transaction.js';
import type { ChipResponses } from './documents.js';
import { DomainError } from '../errors.js';
import { isId, newId } from '../ids.js';
import { sealer, type Sealer } from '../secrets/index.js';
import type { Caller, World } from '../world.js';
import { recordAudit } from '../audit/index.js';
import type { Protocol } from '../tags/index.js';
import { configureTag, getTag, recordConfigurationFailure } from '../tags/index.js';
import { defaultLayout } from '../chips/url-layout.js';
import * as chipsRepo from '../tag-chips/index.js';
import type { Clock } from '../time.js';
import * as writesRepo from './repository.js';
import type { WriteRow } from './repository.js';
import { advance, startWrite, type ChipKeys, type FailureReason, type StepEnv, type StepResult, type WriteState } from './steps.js';
import { advanceRekey, type RekeyResult, type RekeyState } from './rekey-steps.js';
import { commitRekey, firstRekeyBatch, originalityKeyOf, recordPending, rekeyEnv } from './rekey.js';

export type { WriteRow } from './repository.js';

/** What a write does: personalize a created tag onto a blank chip, or rekey a configured tag's chip. */
export type Operation = WriteRow['operation'];

/** An abandoned write fails after this long without a round trip (a tap takes well under a second). */
export const WRITE_TIMEOUT_SECONDS = 120;

interface Stored {
  /** The step machine's state (EV2 or LRP session keys, RndA/RndB), sealed under the mode's master. */
  sealed?: string;
  /** The batch the writer must send now (hex). */
  apdus?: string[];
}

const stored = (row: WriteRow): Stored => JSON.parse(row.state) as Stored;

export function pendingApdus(row: WriteRow): string[] {
  return row.result === null ? (stored(row).apdus ?? []) : [];
}

// A write's state holds live session keys between round trips: at rest it is sealed like every
// other secret (src/secrets), so a database dump alone cannot finish or forge a running write.
const SESSION_PURPOSE = 'writer-session';
const sealers = new WeakMap<Buffer, Sealer>();

function sessionSealer(master: Buffer): Sealer {
  let box = sealers.get(master);
  if (!box) sealers.set(master, (box = sealer(master, SESSION_PURPOSE)));
  return box;
}

function storeState(master: Buffer, machine: WriteState | RekeyState, apdus: Buffer[]): string {
  return JSON.stringify({ sealed: sessionSealer(master).seal(JSON.stringify(machine)), apdus: apdus.map((a) => a.toString('hex')) } satisfies Stored);
}

function openState<S extends WriteState | RekeyState>(master: Buffer, row: WriteRow): S {
  return JSON.parse(sessionSealer(master).open(stored(row).sealed!)) as S;
}

function envFor(ctx: Kernel & MastersState, world: World, master: Buffer, tagId: string, protocol: Protocol, url: string): StepEnv {
  const metaRead = teamMetaReadKey(master, world.teamId, CURRENT_KEY_VERSION);
  return {
    protocol,
    url,
    originalityKey: originalityKeyOf(ctx.config, world.mode),
    keysOf(uid): ChipKeys {
      const k = deriveChipKeys(master, uid, CURRENT_KEY_VERSION);
      return {
        appMaster: k.appMasterKey,
        sdmFileRead: k.sdmFileReadKey,
        sdmMetaRead: metaRead,
        appKey3: k.appKey3,
        appKey4: k.appKey4,
        version: CURRENT_KEY_VERSION,
      };
    },
    uidBoundElsewhere: (uid) => boundTo(ctx.db.kysely, world, uid, tagId),
  };
}

/** The tag a chip is already bound to, as a refusal may name it: its id in the caller's team, nothing of another team's. */
async function boundTo(db: Executor, world: World, uid: string, tagId: string): Promise<string | null> {
  const owner = await chipsRepo.chipOwner(db, world, uid, tagId);
  if (owner === null) return null;
  return owner.teamId === world.teamId ? `tag ${owner.tagId}` : 'a tag of another team';
}

const TIMEOUT: FailureReason = { code: 'timeout', detail: `the write was abandoned: no round trip for ${WRITE_TIMEOUT_SECONDS} s` };
const tagDeleted = (tagId: string): FailureReason => ({ code: 'tag_deleted', detail: `tag ${tagId} was deleted during the write` });

/**
 * Ends a running write as failed and, for a personalization, records tag.configuration_failed (unless
 * the tag is gone; a failed rekey leaves a configured tag as it was), in one conditional UPDATE that also
 * claims the round trip when `claim` is set. Null when another request changed the write first (nothing done).
 */
async function failWrite(trx: Executor, clock: Clock, world: World, row: WriteRow, reason: FailureReason, claim = false): Promise<WriteRow | null> {
  const end = {
    step: 'failed',
    state: '{}',
    result: 'failed' as const,
    reason: JSON.stringify(reason),
    round_trips: row.round_trips + (claim ? 1 : 0),
    updated_at: clock.nowMicros(),
  };
  if (!(await writesRepo.updateRunningWrite(trx, row.id, row.round_trips, end))) return null;
  if (row.operation === 'personalize') await recordConfigurationFailure(trx, world, row.tag_id, clock, reason);
  return { ...row, ...end };
}

/**
 * POST /writer/writes: a `created` tag (a `configured` one to rekey) → its first batch of APDUs (or a
 * failure before any APDU). One read inside the transaction gets the tag and a running write past its
 * deadline (failed as timeout first); the partial unique index turns a second running write into 409
 * WriteInProgress.
 */
export async function startTagWrite(ctx: Kernel & MastersState, world: Caller, tagId: unknown, operation: Operation = 'personalize'): Promise<WriteRow> {
  if (!isId('tag', tagId)) throw new DomainError('NotFound');
  const master = await modeMaster(ctx, world.mode);
  try {
    return await inTransaction(ctx.db, async (trx) => {
      const at = ctx.clock.nowMicros();
      const tag = await writesRepo.findTagWithStaleWrite(trx, world, tagId, at);
      if (!tag) throw new DomainError('NotFound');
      if (tag.stale_id !== null && tag.stale_round_trips !== null) {
        const stale = { id: tag.stale_id, round_trips: tag.stale_round_trips, tag_id: tagId, operation: tag.stale_operation } as WriteRow;
        await failWrite(trx, ctx.clock, world, stale, TIMEOUT);
      }
      if (operation === 'personalize' && tag.status === 'configured') throw new DomainError('ConfiguredTag');
      if (operation === 'rekey' && tag.status !== 'configured') throw new DomainError('UnconfiguredTag');
      const first: StepResult | RekeyResult =
        operation === 'rekey' ? await firstRekeyBatch(ctx, trx, world, tag) : startWrite(tag.protocol as Protocol, tag.url);
      const failure = first.kind === 'failed' ? first.reason : null;
      const row: WriteRow = {
        id: newId('wrt'),
        team_id: world.teamId,
        mode: world.mode,
        tag_id: tagId,
        step: first.kind === 'apdus' ? first.state.step : 'failed',
        state: first.kind === 'apdus' ? storeState(master, first.state, first.apdus) : '{}',
        round_trips: 0,
        expires_at: at + WRITE_TIMEOUT_SECONDS * 1_000_000,
        operation,
        // A failure before any APDU is stored ended: it never counts as the tag's running write.
        result: failure ? 'failed' : null,
        reason: failure ? JSON.stringify(failure) : null,
        created_at: at,
        updated_at: at,
      };
      await writesRepo.insertWrite(trx, row);
      if (failure && operation === 'personalize') await recordConfigurationFailure(trx, world, tagId, ctx.clock, failure);
      await recordAudit(trx, world, at, [{ operation: 'write.start', resourceId: row.id, changes: { tag_id: tagId, operation, result: row.result } }]);
      return row;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new DomainError('WriteInProgress');
    throw error;
  }
}

/** A tag is written a handful of times in its life; a list without pages is enough for its history. */
export const HISTORY_LIMIT = 100;

/** A tag's writes, newest first (at most HISTORY_LIMIT); NotFound when the world has no such tag. */
export async function listTagWrites(ctx: Kernel & MastersState, world: World, tagId: string): Promise<WriteRow[]> {
  await getTag(ctx, world, tagId);
  return writesRepo.listTagWrites(ctx.db.kysely, world, tagId, HISTORY_LIMIT);
}

export async function getWrite(ctx: Kernel & MastersState, world: World, id: string): Promise<WriteRow> {
  if (!isId('wrt', id)) throw new DomainError('NotFound');
  const row = await writesRepo.findWrite(ctx.db.kysely, world, id);
  if (!row) throw new DomainError('NotFound');
  return row;
}

/**
 * POST /writer/writes/:id/responses: the chip's answers to the pending batch → the next batch or
 * the end. A write whose deadline passed fails with reason timeout. Two requests racing on one
 * round trip: the first one wins, the other gets 409 WriteEnded.
 */
export async function exchange(ctx: Kernel & MastersState, world: Caller, input: { id: string } & ChipResponses): Promise<WriteRow> {
  const { id, responses, removed, abort, roundTrip } = input;
  if (!isId('wrt', id)) throw new DomainError('NotFound');
  const db = ctx.db.kysely;
  const found = await writesRepo.findWriteWithTag(db, world, id);
  if (!found) throw new DomainError('NotFound');
  const { tag, ...row } = found;
  if (row.result !== null || (roundTrip !== null && roundTrip !== row.round_trips)) throw new DomainError('WriteEnded');
  let result: StepResult | RekeyResult;
  // The master generation a rekey's new keys come from (recorded with them).
  let generation: number | null = null;
  // A write keeps the generation that sealed its first state to the end: a personalization's keys
  // derive from it and its chip row records it, whatever rotation lands meanwhile.
  let session: { generation: number; key: Buffer } | null = null;
  if (row.expires_at <= ctx.clock.nowMicros()) result = { kind: 'failed', reason: TIMEOUT };
  else if (!tag) result = { kind: 'failed', reason: tagDeleted(row.tag_id) };
  else if (abort) result = { kind: 'failed', reason: { code: 'aborted', detail: 'the writer gave up the write' } };
  else {
    session = await ctx.masters.sealedBy(world.mode, SESSION_PURPOSE, stored(row).sealed ?? '');
    const master = session.key;
    if (row.operation === 'rekey') {
      const rekey = await rekeyEnv(ctx, world, { id: row.tag_id, ...tag });
      generation = rekey.generation;
      result = advanceRekey(openState<RekeyState>(master, row), responses, removed, rekey.env);
    } else {
      result = await advance(openState<WriteState>(master, row), responses, removed, envFor(ctx, world, master, row.tag_id, tag.protocol as Protocol, tag.url));
    }
  }

  if (result.kind === 'apdus') {
    // The next batch: one conditional statement claims the round trip and stores the new state.
    const state = storeState(session!.key, result.state, result.apdus);
    const now = ctx.clock.nowMicros();
    const next: WriteRow = {
      ...row,
      round_trips: row.round_trips + 1,
      step: result.state.step,
      state,
      expires_at: now + WRITE_TIMEOUT_SECONDS * 1_000_000,
      updated_at: now,
    };
    const { round_trips, step, expires_at, updated_at } = next;
    const claim = (db: Executor) => writesRepo.updateRunningWrite(db, row.id, row.round_trips, { round_trips, step, state, expires_at, updated_at });
    const changesKeys = result.state.step === 'rekey' ? result.state : null;
    if (changesKeys === null) {
      if (!(await claim(db))) throw new DomainError('WriteEnded');
      return next;
    }
    // The keys the batch moves the chip to are on disk before the writer can send its first ChangeKey.
    return db.transaction().execute(async (trx) => {
      if (!(await claim(trx))) throw new DomainError('WriteEnded');
      await recordPending(trx, row.tag_id, changesKeys.target, generation);
      return next;
    });
  }
  const end = result;
  return db.transaction().execute(async (trx) => {
    const ended =
      end.kind === 'failed'
        ? await failWrite(trx, ctx.clock, world, row, end.reason, true)
        : end.kind === 'rekeyed'
          ? await rekeyed(trx, ctx.clock, world, row, end.version, generation)
          : await configure(trx, ctx.clock, world, row, end.uid, end.crypto, session!.generation);
    // Only the request that still sees the row as it was read claims this round trip.
    if (!ended) throw new DomainError('WriteEnded');
    // A write's round trips are its own record (GET /writer/writes/:id); the log keeps how it ended.
    await recordAudit(trx, world, ended.updated_at, [
      { operation: 'write.finish', resourceId: ended.id, changes: { tag_id: ended.tag_id, operation: ended.operation, result: ended.result } },
    ]);
    return ended;
  });
}

/** A rekey's success: the round trip claimed and the write closed, then the chip's new keys committed (commitRekey). */
async function rekeyed(trx: Executor, clock: Clock, world: World, row: WriteRow, version: number, generation: number | null): Promise<WriteRow | null> {
  const at = clock.nowMicros();
  const end = { step: 'rekeyed', state: '{}', result: 'rekeyed' as const, round_trips: row.round_trips + 1, updated_at: at };
  if (!(await writesRepo.updateRunningWrite(trx, row.id, row.round_trips, end))) return null;
  if (!(await commitRekey(trx, world, row, version, generation, at))) return null;
  return { ...row, ...end };
}

/**
 * Success: the round trip claimed and the write closed by one UPDATE, then tag configured,
 * tag.configured and the chip row, all in the caller's transaction. A chip bound to another tag
 * meanwhile, or a tag deleted meanwhile, ends the write failed instead. Null: another request won.
 */
async function configure(
  trx: Executor,
  clock: Clock,
  world: World,
  row: WriteRow,
  uid: string,
  crypto: ChipCrypto,
  masterGeneration: number,
): Promise<WriteRow | null> {
  const other = await boundTo(trx, world, uid, row.tag_id);
  if (other !== null) return failWrite(trx, clock, world, row, { code: 'uid_bound_to_another_tag', detail: `chip ${uid} is already bound to ${other}` }, true);
  const at = clock.nowMicros();
  const end = { step: 'configured', state: '{}', result: 'configured' as const, round_trips: row.round_trips + 1, updated_at: at };
  if (!(await writesRepo.updateRunningWrite(trx, row.id, row.round_trips, end))) return null;
  const tag = await configureTag(trx, world, row.tag_id, clock);
  if (!tag) {
    // The tag is gone (no event: there is no tag to announce); the claim above stands, as failed.
    const failed = { step: 'failed', result: 'failed' as const, reason: JSON.stringify(tagDeleted(row.tag_id)), updated_at: at };
    await writesRepo.setWriteEnd(trx, row.id, failed);
    return { ...row, ...end, ...failed };
  }
  const layout = defaultLayout(tag.protocol as Protocol);
  await chipsRepo.insertChips(trx, [
    chipsRepo.chipRow(world, tag, { uid, crypto, layout, keySource: 'derived', keyVersion: CURRENT_KEY_VERSION, masterGeneration }, at),
  ]);
  return { ...row, ...end };
}
