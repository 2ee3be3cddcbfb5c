// Scan retention (TAPPROOF_SCAN_RETENTION_DAYS): scans older than the window are deleted in bounded
// batches, world by world along the (team, mode, scanned_at) index, each batch its own short
// transaction, so the verify path never waits behind a long lock. What is never deleted: what replay
// protection rests on (each chip's last counter and session live in its chip row, not in its scans),
// a scan that a claim, a challenge or an ownership proof refers to, and the per-day counts behind
// GET /verifications/stats (their own tables). A session goes once it has ended before the window and
// no kept scan and no chip names it.
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { Executor } from '../db/database.js';
import type { Database, Mode, VerificationsTable } from '../db/schema.js';
import type { BackgroundJob } from '../background-job.js';
import type { Kernel } from '../kernel.js';

const DAY_MICROS = 86_400_000_000;
const MODES: Mode[] = ['sandbox', 'production'];

export interface PruneOptions {
  days: number;
  /** Count what would go, delete nothing. */
  dryRun?: boolean;
  /** Rows per delete statement. */
  batch?: number;
  /** Milliseconds between batches, for the writers waiting on the database. */
  pause?: number;
}

export interface PruneReport {
  /** Microseconds: scans before this are beyond the window. */
  cutoff: number;
  verifications: number;
  sessions: number;
  dryRun: boolean;
}

/** The tables whose rows name a scan, which keeps it. */
const REFERRERS = ['claims', 'challenges', 'ownerships', 'ownership_proofs'] as const;

/** Whether something names the scan `v`. */
const referenced = (eb: ExpressionBuilder<Database & { v: VerificationsTable }, 'v'>) =>
  eb.or(
    REFERRERS.map((table) =>
      eb.exists(
        eb
          .selectFrom(`${table} as r` as 'claims as r')
          .select(sql.lit(1).as('one'))
          .whereRef('r.verification_id', '=', 'v.id'),
      ),
    ),
  );

/** Scans of one world beyond the cutoff that nothing names. */
function prunable(db: Executor, teamId: string, mode: Mode, cutoff: number) {
  return db
    .selectFrom('verifications as v')
    .select('v.id')
    .where('v.team_id', '=', teamId)
    .where('v.mode', '=', mode)
    .where('v.scanned_at', '<', cutoff)
    .where((eb) => eb.not(referenced(eb)));
}

/**
 * Ended sessions of one world beyond the cutoff that no kept scan and no chip names: the same set
 * before the scans go (a dry run) and after.
 */
function prunableSessions(db: Executor, teamId: string, mode: Mode, cutoff: number) {
  return db
    .selectFrom('sessions as s')
    .select('s.id')
    .where('s.team_id', '=', teamId)
    .where('s.mode', '=', mode)
    .where('s.expires_at', '<', cutoff)
    .where((eb) =>
      eb.not(
        eb.or([
          eb.exists(
            eb
              .selectFrom('verifications as v')
              .select(sql.lit(1).as('one'))
              .whereRef('v.session_id', '=', 's.id')
              .where((v) => v.or([v('v.scanned_at', '>=', cutoff), referenced(v as never)])),
          ),
          eb.exists(eb.selectFrom('chips as k').select(sql.lit(1).as('one')).whereRef('k.session_id', '=', 's.id')),
        ]),
      ),
    );
}

/** Deletes (or counts, dry run) the scans and sessions beyond the window, world by world, a batch per statement. */
export async function pruneScans(ctx: Pick<Kernel, 'db' | 'clock'>, options: PruneOptions): Promise<PruneReport> {
  const db = ctx.db.kysely;
  const batch = options.batch ?? 1_000;
  const cutoff = ctx.clock.nowMicros() - options.days * DAY_MICROS;
  const report: PruneReport = { cutoff, verifications: 0, sessions: 0, dryRun: options.dryRun === true };
  const pause = () => new Promise((resolve) => setTimeout(resolve, options.pause ?? 0));
  // Scans first: a session goes only once none of its scans is kept.
  type Ids = (db: Executor, teamId: string, mode: Mode, cutoff: number) => SelectQueryBuilder<any, any, { id: string }>;
  const steps: { table: 'verifications' | 'sessions'; rows: Ids }[] = [
    { table: 'verifications', rows: prunable },
    { table: 'sessions', rows: prunableSessions },
  ];
  for (const { id: teamId } of await db.selectFrom('teams').select('id').execute()) {
    for (const mode of MODES) {
      for (const step of steps) {
        if (report.dryRun) {
          report[step.table] += (await step.rows(db, teamId, mode, cutoff).execute()).length;
          continue;
        }
        for (;;) {
          const ids = step.rows(db, teamId, mode, cutoff).limit(batch);
          const deleted = Number((await db.deleteFrom(step.table).where('id', 'in', ids).executeTakeFirst()).numDeletedRows);
          report[step.table] += deleted;
          if (deleted < batch) break;
          await pause();
        }
      }
    }
  }
  return report;
}

/** How often the job looks for scans past the window, and how long it rests between batches. */
const EVERY_MS = 10 * 60_000;
const PAUSE_MS = 50;

/**
 * TAPPROOF_SCAN_RETENTION_DAYS as a job of `serve` and `worker`: a prune at start and every 10 minutes,
 * one at a time; a failure waits for the next round (the log says why). Metrics count what went.
 */
export const scanRetention: BackgroundJob<Pick<Kernel, 'db' | 'clock' | 'config' | 'log' | 'metrics'>> = {
  name: 'scan-retention',
  start(ctx) {
    const days = ctx.config.scanRetentionDays;
    if (days === null) return async () => {};
    let stopped = false;
    let running: Promise<void> = Promise.resolve();
    const round = async () => {
      try {
        const report = await pruneScans(ctx, { days, pause: PAUSE_MS });
        ctx.metrics.pruned.inc({ what: 'verifications' }, report.verifications);
        ctx.metrics.pruned.inc({ what: 'sessions' }, report.sessions);
        if (report.verifications + report.sessions > 0) ctx.log.info({ ...report, days }, 'pruned scans past the retention window');
      } catch (error) {
        if (!stopped) ctx.log.warn({ err: error }, 'scan retention failed; the next round tries again');
      }
    };
    running = round();
    const timer = setInterval(() => {
      running = running.then(round);
    }, EVERY_MS);
    timer.unref();
    return async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    };
  },
};
