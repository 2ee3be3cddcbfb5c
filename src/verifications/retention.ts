// Scan retention (TAPPROOF_SCAN_RETENTION_DAYS): scans older than the window are deleted in bounded
// batches, world by world along the (team, mode, scanned_at) index, each batch its own short
// transaction, so the verify path never waits behind a long lock. What is never deleted: what replay
// protection rests on (each chip's last counter and session live in its chip row, not in its scans),
// a scan that a claim, a challenge or an ownership proof refers to, and the per-day counts behind
// GET /verifications/stats (their own tables). A session goes with the last of its scans, unless its
// chip still names it (the chip's current session).
import type { Db } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import { inTransaction } from '../db/transaction.js';
import { everyInterval, type BackgroundJob } from '../background-job.js';
import type { Kernel } from '../kernel.js';
import { recordAudit, systemActor } from '../audit/index.js';
import { listTeamIds } from '../teams/index.js';
import * as retentionRepo from './retention-repository.js';
import type { Actor } from '../world.js';

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
  /** Who prunes (the background job, the CLI), for the audit log: one record per batch, in its transaction. */
  actor: Actor;
}

export interface PruneReport {
  /** Microseconds: scans before this are beyond the window. */
  cutoff: number;
  verifications: number;
  sessions: number;
  dryRun: boolean;
}

/**
 * One batch of one world: up to `batch` prunable scans, oldest first, and the sessions they alone
 * named, in one transaction (a session is never left behind by a crash between the two). The
 * sessions to look at come from the deleted scans themselves, so no statement walks the sessions.
 */
async function pruneBatch(
  db: Db,
  teamId: string,
  mode: Mode,
  cutoff: number,
  batch: number,
  actor: Actor,
  at: number,
): Promise<{ verifications: number; sessions: number }> {
  return inTransaction(db, async (trx) => {
    const rows = await retentionRepo.oldestPrunable(trx, teamId, mode, cutoff, batch);
    if (rows.length === 0) return { verifications: 0, sessions: 0 };
    await retentionRepo.deleteScans(
      trx,
      rows.map((r) => r.id),
    );
    const named = [...new Set(rows.flatMap((r) => (r.session_id === null ? [] : [r.session_id])))];
    const sessions = named.length > 0 ? await retentionRepo.deleteUnwantedSessions(trx, named) : 0;
    await recordAudit(trx, { teamId, mode, actor }, at, [
      { operation: 'scans.prune', resourceId: null, changes: { before: cutoff, scans: rows.length, sessions } },
    ]);
    return { verifications: rows.length, sessions };
  });
}

/** Deletes (or counts, dry run) the scans and sessions beyond the window, world by world, a batch per transaction. */
export async function pruneScans(ctx: Pick<Kernel, 'db' | 'clock'>, options: PruneOptions): Promise<PruneReport> {
  const db = ctx.db;
  const batch = options.batch ?? 1_000;
  const cutoff = ctx.clock.nowMicros() - options.days * DAY_MICROS;
  const report: PruneReport = { cutoff, verifications: 0, sessions: 0, dryRun: options.dryRun === true };
  const pause = () => new Promise((resolve) => setTimeout(resolve, options.pause ?? 0));
  for (const teamId of await listTeamIds(db.kysely)) {
    for (const mode of MODES) {
      if (report.dryRun) {
        const counts = await retentionRepo.countPrunable(db.kysely, teamId, mode, cutoff);
        report.verifications += counts.verifications;
        report.sessions += counts.sessions;
        continue;
      }
      for (;;) {
        const done = await pruneBatch(db, teamId, mode, cutoff, batch, options.actor, ctx.clock.nowMicros());
        report.verifications += done.verifications;
        report.sessions += done.sessions;
        if (done.verifications < batch) break;
        await pause();
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
    return everyInterval(ctx.log, { everyMs: EVERY_MS, atStart: true, failure: 'scan retention failed; the next round tries again' }, async () => {
      const report = await pruneScans(ctx, { days, pause: PAUSE_MS, actor: systemActor('scan-retention') });
      ctx.metrics.pruned.inc({ what: 'verifications' }, report.verifications);
      ctx.metrics.pruned.inc({ what: 'sessions' }, report.sessions);
      if (report.verifications + report.sessions > 0) ctx.log.info({ ...report, days }, 'pruned scans past the retention window');
    });
  },
};
