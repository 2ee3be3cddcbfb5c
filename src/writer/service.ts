// Remote personalization (issue #8): a write of a `created` tag onto a chip, one round trip at a
// time. The steps and all cryptography are in steps.ts; this keeps their state in writer_sessions
// and ends a write in one transaction with its tag: configured (chip row, tag.configured) or failed
// (tag.configuration_failed with the reason; the tag stays `created` and can be written again).
import { CURRENT_KEY_VERSION, deriveChipKeys, teamMetaReadKey } from '../chip-keys/derive.js';
import { modeMaster } from '../chip-keys/masters.js';
import { EMULATOR_ORIGINALITY_KEY, NTAG424_ORIGINALITY_KEY } from '../chips/index.js';
import type { AppContext } from '../context.js';
import { isUniqueViolation, type Executor } from '../db/database.js';
import type { WriterSessionsTable } from '../db/schema.js';
import { DomainError } from '../errors.js';
import { isId, newId } from '../ids.js';
import { sealer, type Sealer } from '../secrets/index.js';
import { findTag } from '../tags/repository.js';
import type { World } from '../world.js';
import type { Protocol } from '../tags/rules.js';
import { markConfigured, recordConfigurationFailure } from '../tags/service.js';
import { defaultLayout } from '../tag-chips/layout.js';
import { chipRow, insertChips } from '../tag-chips/repository.js';
import { nowMicros } from '../time.js';
import { advance, startWrite, type ChipKeys, type FailureReason, type StepEnv, type StepResult, type WriteState } from './steps.js';

/** An abandoned write fails after this long without a round trip (a tap takes well under a second). */
export const WRITE_TIMEOUT_SECONDS = 120;

export type WriteRow = WriterSessionsTable;

interface Stored {
  /** The step machine's state (EV2 session keys, RndA/RndB), sealed under the mode's master. */
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

function storeState(master: Buffer, machine: WriteState, apdus: Buffer[]): string {
  return JSON.stringify({ sealed: sessionSealer(master).seal(JSON.stringify(machine)), apdus: apdus.map((a) => a.toString('hex')) } satisfies Stored);
}

function openState(master: Buffer, row: WriteRow): WriteState {
  return JSON.parse(sessionSealer(master).open(stored(row).sealed!)) as WriteState;
}

function envFor(ctx: AppContext, world: World, master: Buffer, tagId: string, protocol: Protocol, url: string): StepEnv {
  const metaRead = teamMetaReadKey(master, world.teamId, CURRENT_KEY_VERSION);
  return {
    protocol,
    url,
    // Sandbox chips are the emulator's, signed with its key; production accepts NXP silicon only.
    originalityKey: world.mode === 'sandbox' ? EMULATOR_ORIGINALITY_KEY : NTAG424_ORIGINALITY_KEY,
    keysOf(uid): ChipKeys {
      const k = deriveChipKeys(master, uid, CURRENT_KEY_VERSION);
      return { appMaster: k.appMasterKey, sdmFileRead: k.sdmFileReadKey, sdmMetaRead: metaRead, version: CURRENT_KEY_VERSION };
    },
    uidBoundElsewhere: (uid) => uidOwner(ctx.db.kysely, world, uid, tagId),
  };
}

async function uidOwner(db: Executor, world: World, uid: string, tagId: string): Promise<string | null> {
  const row = await db.selectFrom('chips').select('tag_id').where('mode', '=', world.mode).where('uid', '=', uid).where('tag_id', '!=', tagId).executeTakeFirst();
  return row?.tag_id ?? null;
}

/** Ends a write as failed: the session row and tag.configuration_failed (unless the tag is gone). */
async function failWrite(trx: Executor, world: World, row: WriteRow, reason: FailureReason): Promise<WriteRow> {
  const at = nowMicros();
  const ended: WriteRow = { ...row, step: 'failed', state: '{}', result: 'failed', reason: JSON.stringify(reason), updated_at: at };
  await trx.updateTable('writer_sessions').set({ step: 'failed', state: '{}', result: 'failed', reason: ended.reason, updated_at: at }).where('id', '=', row.id).execute();
  if (await findTag(trx, world, row.tag_id)) await recordConfigurationFailure(trx, world, row.tag_id, reason);
  return ended;
}

/** Running writes of `tagId` past their deadline count as failed (reason timeout). */
async function expireStale(trx: Executor, world: World, tagId: string, at: number): Promise<void> {
  const stale = await trx.selectFrom('writer_sessions').selectAll().where('tag_id', '=', tagId).where('result', 'is', null).where('expires_at', '<=', at).execute();
  for (const row of stale) await failWrite(trx, world, row, { code: 'timeout', detail: `the write was abandoned: no round trip for ${WRITE_TIMEOUT_SECONDS} s` });
}

/** POST /writer/writes: a `created` tag → its first batch of APDUs (or a failure before any APDU). */
export async function startTagWrite(ctx: AppContext, world: World, tagId: unknown): Promise<WriteRow> {
  if (!isId('tag', tagId)) throw new DomainError('NotFound');
  const db = ctx.db.kysely;
  const tag = await findTag(db, world, tagId);
  if (!tag) throw new DomainError('NotFound');
  if (tag.status === 'configured') throw new DomainError('ConfiguredTag');
  const first = startWrite(tag.protocol as Protocol, tag.url);
  const master = await modeMaster(ctx, world.mode);
  try {
    return await db.transaction().execute(async (trx) => {
      const at = nowMicros();
      await expireStale(trx, world, tagId, at);
      const current = await findTag(trx, world, tagId);
      if (!current) throw new DomainError('NotFound');
      if (current.status === 'configured') throw new DomainError('ConfiguredTag');
      const row: WriteRow = {
        id: newId('wrt'),
        team_id: world.teamId,
        mode: world.mode,
        tag_id: tagId,
        step: first.kind === 'apdus' ? first.state.step : 'failed',
        state: first.kind === 'apdus' ? storeState(master, first.state, first.apdus) : '{}',
        round_trips: 0,
        expires_at: at + WRITE_TIMEOUT_SECONDS * 1_000_000,
        result: null,
        reason: null,
        created_at: at,
        updated_at: at,
      };
      await trx.insertInto('writer_sessions').values(row).execute();
      return first.kind === 'failed' ? await failWrite(trx, world, row, first.reason) : row;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new DomainError('WriteInProgress');
    throw error;
  }
}

export async function getWrite(ctx: AppContext, world: World, id: string): Promise<WriteRow> {
  if (!isId('wrt', id)) throw new DomainError('NotFound');
  const row = await ctx.db.kysely.selectFrom('writer_sessions').selectAll().where('id', '=', id).where('team_id', '=', world.teamId).where('mode', '=', world.mode).executeTakeFirst();
  if (!row) throw new DomainError('NotFound');
  return row;
}

/**
 * POST /writer/writes/:id/responses: the chip's answers to the pending batch → the next batch or
 * the end. A write whose deadline passed fails with reason timeout. Two requests racing on one
 * round trip: the first one wins, the other gets 409 WriteEnded.
 */
export async function exchange(ctx: AppContext, world: World, id: string, responses: Buffer[], removed: boolean, abort = false, roundTrip: number | null = null): Promise<WriteRow> {
  const row = await getWrite(ctx, world, id);
  if (row.result !== null || (roundTrip !== null && roundTrip !== row.round_trips)) throw new DomainError('WriteEnded');
  const db = ctx.db.kysely;
  const at = nowMicros();
  const tag = await findTag(db, world, row.tag_id);
  let result: StepResult;
  if (row.expires_at <= at) result = { kind: 'failed', reason: { code: 'timeout', detail: `the write was abandoned: no round trip for ${WRITE_TIMEOUT_SECONDS} s` } };
  else if (!tag) result = { kind: 'failed', reason: { code: 'tag_deleted', detail: `tag ${row.tag_id} was deleted during the write` } };
  else if (abort) result = { kind: 'failed', reason: { code: 'aborted', detail: 'the writer gave up the write' } };
  else {
    const master = await modeMaster(ctx, world.mode);
    result = await advance(openState(master, row), responses, removed, envFor(ctx, world, master, row.tag_id, tag.protocol as Protocol, tag.url));
  }

  if (result.kind === 'apdus') {
    // The next batch: one conditional statement claims the round trip and stores the new state.
    const state = storeState(await modeMaster(ctx, world.mode), result.state, result.apdus);
    const now = nowMicros();
    const next: WriteRow = { ...row, round_trips: row.round_trips + 1, step: result.state.step, state, expires_at: now + WRITE_TIMEOUT_SECONDS * 1_000_000, updated_at: now };
    const moved = await db
      .updateTable('writer_sessions')
      .set({ round_trips: next.round_trips, step: next.step, state, expires_at: next.expires_at, updated_at: next.updated_at })
      .where('id', '=', row.id)
      .where('round_trips', '=', row.round_trips)
      .where('result', 'is', null)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) throw new DomainError('WriteEnded');
    return next;
  }
  const end = result;
  return db.transaction().execute(async (trx) => {
    // Claims this round trip: only the request that still sees the row as it was read proceeds.
    const claim = await trx
      .updateTable('writer_sessions')
      .set({ round_trips: row.round_trips + 1, updated_at: nowMicros() })
      .where('id', '=', row.id)
      .where('round_trips', '=', row.round_trips)
      .where('result', 'is', null)
      .executeTakeFirst();
    if (Number(claim.numUpdatedRows) !== 1) throw new DomainError('WriteEnded');
    const claimed: WriteRow = { ...row, round_trips: row.round_trips + 1 };
    return end.kind === 'failed' ? failWrite(trx, world, claimed, end.reason) : configure(trx, world, claimed, end.uid);
  });
}

/** Success: chip row, tag configured and tag.configured, all in the caller's transaction. */
async function configure(trx: Executor, world: World, row: WriteRow, uid: string): Promise<WriteRow> {
  const tag = await findTag(trx, world, row.tag_id);
  if (!tag) return failWrite(trx, world, row, { code: 'tag_deleted', detail: `tag ${row.tag_id} was deleted during the write` });
  const other = await uidOwner(trx, world, uid, row.tag_id);
  if (other !== null) return failWrite(trx, world, row, { code: 'uid_bound_to_another_tag', detail: `chip ${uid} is already bound to tag ${other}` });
  const protocol = tag.protocol as Protocol;
  const layout = defaultLayout(protocol);
  const at = nowMicros();
  await insertChips(trx, [chipRow(world, tag, { uid, crypto: 'aes', layout, keySource: 'derived', keyVersion: CURRENT_KEY_VERSION }, at)]);
  await markConfigured(trx, world, tag.id);
  await trx.updateTable('writer_sessions').set({ step: 'configured', state: '{}', result: 'configured', updated_at: at }).where('id', '=', row.id).execute();
  return { ...row, step: 'configured', state: '{}', result: 'configured', updated_at: at };
}
