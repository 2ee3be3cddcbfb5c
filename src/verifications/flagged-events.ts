// The opt-in webhook event verification.flagged: a verification that carries a counterfeit signal,
// written to the outbox in the commit that stores it (src/webhooks/outbox.ts), with the tag as the
// API shows it then, the signals, and how many flagged scans it stands for.
//
// Coalesced per tag and signal (docs/signals.md#listing-counting-announcing): forged URLs of a known tag
// need no key to be sent (a landing page forwards any visitor's), so one event per flagged scan would let
// anyone flood a brand's receiver. A flagged scan is announced when one of its signals has had no event
// of this tag for FLAG_WINDOW_SECONDS; otherwise it is held back and counted. The next event of that tag
// and signal says how many scans it stands for (`scans`, per signal, itself included), and a window that
// ends with scans held back is announced by the summaries job with the last of them.
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import { inTransaction } from '../db/transaction.js';
import { everyInterval, type BackgroundJob } from '../background-job.js';
import { groupBy } from '../group-by.js';
import type { Kernel } from '../kernel.js';
import { signalsOf } from '../signals/index.js';
import * as tagsRepo from '../tags/index.js';
import { renderTag } from '../tags/index.js';
import { recordEvents } from '../webhooks/index.js';
import * as flagWindowsRepo from './flag-windows-repository.js';
import type { FlagWindowRow } from './flag-windows-repository.js';
import * as verificationsRepo from './repository.js';
import type { VerificationRow } from './repository.js';
import { renderVerification } from './serializer.js';

/** How long one (tag, signal) stays quiet after its event: later flagged scans are held back and counted. */
export const FLAG_WINDOW_SECONDS = 60;
const WINDOW_MICROS = FLAG_WINDOW_SECONDS * 1_000_000;

type Announcement = { row: VerificationRow; scans: Record<string, number> };

/** Writes each announcement's event, per world, with the tags as they are now. */
async function announce(db: Executor, announcements: Announcement[], at: number): Promise<void> {
  for (const group of groupBy(announcements, ({ row }) => `${row.team_id} ${row.mode}`).values()) {
    const world = { teamId: group[0]!.row.team_id, mode: group[0]!.row.mode as Mode };
    const tags = new Map((await tagsRepo.findTags(db, world, [...new Set(group.map(({ row }) => row.tag_id))])).map((tag) => [tag.id, tag]));
    const events = group.map(({ row, scans }) => ({
      teamId: row.team_id,
      mode: row.mode as Mode,
      tagId: row.tag_id,
      data: renderVerification(row),
      extra: { tag: renderTag(tags.get(row.tag_id)!), signals: signalsOf(row.signals), scans },
    }));
    await recordEvents(db, 'verification.flagged', events, at);
  }
}

/** In the scan's commit (the tags' chips locked): announces or holds back each flagged verification, in arrival order. */
export async function announceFlagged(db: Executor, rows: VerificationRow[]): Promise<void> {
  if (rows.length === 0) return;
  const windows = new Map((await flagWindowsRepo.lockWindows(db, [...new Set(rows.map((row) => row.tag_id))])).map((w) => [`${w.tag_id} ${w.signal}`, w]));
  const changed = new Map<string, FlagWindowRow>();
  const announcements: Announcement[] = [];
  for (const row of rows) {
    const signals = signalsOf(row.signals);
    const open = (signal: string) => {
      const w = windows.get(`${row.tag_id} ${signal}`);
      return w !== undefined && row.scanned_at < w.opened_at + WINDOW_MICROS ? w : undefined;
    };
    const fresh = signals.some((signal) => open(signal) === undefined);
    const scans: Record<string, number> = {};
    for (const signal of signals) {
      const key = `${row.tag_id} ${signal}`;
      const w = windows.get(key);
      const next: FlagWindowRow = fresh
        ? // Announced: this scan and those held back stand behind the event, and a new window opens.
          { tag_id: row.tag_id, signal, team_id: row.team_id, mode: row.mode, opened_at: row.scanned_at, held: 0, last_held_id: null }
        : { ...w!, held: w!.held + 1, last_held_id: row.id };
      if (fresh) scans[signal] = (w?.held ?? 0) + 1;
      windows.set(key, next);
      changed.set(key, next);
    }
    if (fresh) announcements.push({ row, scans });
  }
  await flagWindowsRepo.saveWindows(db, [...changed.values()]);
  if (announcements.length > 0) await announce(db, announcements, rows.at(-1)!.scanned_at);
}

/**
 * Announces the windows that ended with flagged scans held back, each with the last of them and how many
 * it stands for; a window and its summary are one transaction, so a summary is sent once.
 */
export async function announceHeldScans(ctx: Pick<Kernel, 'db' | 'clock'>, limit = 100): Promise<number> {
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.nowMicros();
    const due = await flagWindowsRepo.dueWindows(trx, now - WINDOW_MICROS, limit);
    const byScan = new Map<string, Announcement>();
    for (const w of due) {
      const row = await verificationsRepo.findVerification(trx, { teamId: w.team_id, mode: w.mode }, w.last_held_id!);
      await flagWindowsRepo.clearHeld(trx, w);
      // Its scan pruned meanwhile (retention): nothing left to show.
      if (!row) continue;
      const entry = byScan.get(row.id) ?? { row, scans: {} };
      entry.scans[w.signal] = w.held;
      byScan.set(row.id, entry);
    }
    if (byScan.size > 0) await announce(trx, [...byScan.values()], now);
    return due.length;
  });
}

/** How often `serve` and `worker` look for windows that ended with scans held back. */
const EVERY_MS = 5_000;

export const heldScanSummaries: BackgroundJob<Pick<Kernel, 'db' | 'clock' | 'log'>> = {
  name: 'flagged-summaries',
  start(ctx) {
    return everyInterval(
      ctx.log,
      { everyMs: EVERY_MS, atStart: false, failure: 'flagged-scan summaries failed; the next round tries again' },
      async (stopped) => {
        // A full round (100 windows) may leave more due.
        while (!stopped() && (await announceHeldScans(ctx)) === 100);
      },
    );
  },
};
