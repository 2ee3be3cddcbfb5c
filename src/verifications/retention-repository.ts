// The statements of scan retention (src/verifications/retention.ts): which scans of a world are past the
// window and named by nothing, and which sessions go with them.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Executor } from '../db/database.js';
import type { Database, Mode, SessionsTable, VerificationsTable } from '../db/schema.js';
import { inWorld } from '../db/in-world.js';

/** The tables whose rows name a scan, which keeps it. */
const REFERRERS = ['claims', 'challenges', 'ownerships', 'ownership_proofs'] as const;

/** Whether something names the scan whose id is the column `scan` (`v.id`, `w.id`). */
const referenced = (eb: ExpressionBuilder<any, any>, scan: 'v.id' | 'w.id') =>
  eb.or(
    REFERRERS.map((table) =>
      eb.exists(
        eb
          .selectFrom(`${table} as r` as 'claims as r')
          .select(sql.lit(1).as('one'))
          .whereRef('r.verification_id', '=', scan),
      ),
    ),
  );

/** Scans of one world beyond the cutoff that nothing names, oldest first (the world index's order). */
function prunable(db: Executor, teamId: string, mode: Mode, cutoff: number) {
  return db
    .selectFrom('verifications as v')
    .$call(inWorld({ teamId, mode }, 'v'))
    .where('v.scanned_at', '<', cutoff)
    .where((eb) => eb.not(referenced(eb, 'v.id')));
}

/**
 * Whether the session `s` is still wanted once `gone` scans are deleted: its chip names it (the chip's
 * current session, which replay protection and the next tap read), or a scan outside `gone` names it.
 * Both looked up by the session's tag (the chip's key, the tag index), never by a scan of the whole table.
 */
const wanted = (
  eb: ExpressionBuilder<Database & { s: SessionsTable }, 's'>,
  gone: (v: ExpressionBuilder<Database & { w: VerificationsTable }, 'w'>) => Expression<SqlBool>,
) =>
  eb.or([
    eb.exists(eb.selectFrom('chips as k').select(sql.lit(1).as('one')).whereRef('k.tag_id', '=', 's.tag_id').whereRef('k.session_id', '=', 's.id')),
    eb.exists(
      eb
        .selectFrom('verifications as w')
        .select(sql.lit(1).as('one'))
        .whereRef('w.tag_id', '=', 's.tag_id')
        .whereRef('w.session_id', '=', 's.id')
        .where((w) => w.not(gone(w as never))),
    ),
  ]);

/** What a run would delete in one world, counted without reading the rows out. */
export async function countPrunable(db: Executor, teamId: string, mode: Mode, cutoff: number): Promise<{ verifications: number; sessions: number }> {
  const scans = await prunable(db, teamId, mode, cutoff)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  const sessions = await db
    .selectFrom('sessions as s')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('s.id', 'in', prunable(db, teamId, mode, cutoff).select('v.session_id').where('v.session_id', 'is not', null).$narrowType<{ session_id: string }>())
    .where((eb) => eb.not(wanted(eb, (w) => w.and([w('w.scanned_at', '<', cutoff), w.not(referenced(w, 'w.id'))]))))
    .executeTakeFirstOrThrow();
  return { verifications: Number(scans.n), sessions: Number(sessions.n) };
}

/** Up to `batch` prunable scans of one world, oldest first, with the session each names. */
export function oldestPrunable(db: Executor, teamId: string, mode: Mode, cutoff: number, batch: number) {
  return prunable(db, teamId, mode, cutoff).select(['v.id', 'v.session_id']).orderBy('v.scanned_at').limit(batch).execute();
}

export async function deleteScans(db: Executor, ids: string[]): Promise<void> {
  await db.deleteFrom('verifications').where('id', 'in', ids).execute();
}

/** Deletes the sessions of `named` that neither their chip nor a remaining scan names; returns how many went. */
export async function deleteUnwantedSessions(db: Executor, named: string[]): Promise<number> {
  const deleted = await db
    .deleteFrom('sessions as s')
    .where('s.id', 'in', named)
    .where((eb) => eb.not(wanted(eb, () => sql<SqlBool>`false`)))
    .executeTakeFirst();
  return Number(deleted.numDeletedRows);
}
