// Scans as a kind of group-commit write (src/db/group-commit.ts). Every
// verification must be durable before it is answered (a lost accepted counter
// would let its URL be accepted again). Inside a batch, scans are decided in
// arrival order against the chip rows locked for the batch, which makes the
// counter check-and-advance atomic across requests, batches and processes.
import type { Dialect, Executor } from '../db/database.js';
import type { WriteKind } from '../db/group-commit.js';
import * as chipsRepo from '../tag-chips/repository.js';
import type { LockedChip } from '../tag-chips/repository.js';
import { decide, decided, type AuthenticScan, type Scan } from './decide.js';
import * as verificationsRepo from './repository.js';
import type { VerificationRow } from './repository.js';

/** The tags whose chips a batch reads, each once. */
const tagsOf = (scans: Scan[]): string[] => [...new Set(scans.flatMap((scan) => (scan.kind === 'authentic' ? [scan.row.tag_id] : [])))];

/** Decides and writes one batch in the caller's transaction; returns each scan's verification. */
export async function writeBatch(trx: Executor, scans: Scan[], seen?: SeenChips): Promise<VerificationRow[]> {
  const chips = new Map((await chipsRepo.lockForBatch(trx, tagsOf(scans))).map((c) => [c.tag_id, c]));
  const { results, inserts, sessions, advances, acceptedHere, losers } = decide(scans, chips);

  if (losers.length > 0) {
    const lost = losers.map(({ index }) => (scans[index] as AuthenticScan).row);
    // A reload (or a simultaneous duplicate) within session_duration answers the original.
    const sinceOf = (row: AuthenticScan['row']) => row.scanned_at - (chips.get(row.tag_id)?.session_duration ?? 0) * 1_000_000;
    const earliest = Math.min(...lost.map(sinceOf));
    const earlier = await verificationsRepo.findGenuineByUrlHashes(
      trx,
      [...new Set(lost.map((row) => row.tag_id))],
      [...new Set(lost.map((row) => row.url_hash))],
      earliest,
    );
    for (const { index: i, newest } of losers) {
      const scan = scans[i] as AuthenticScan;
      const { row } = scan;
      const since = sinceOf(row);
      const original =
        row.read_counter !== newest
          ? undefined
          : (acceptedHere.get(`${row.tag_id} ${row.url_hash}`) ??
            earlier.find((v) => v.tag_id === row.tag_id && v.url_hash === row.url_hash && v.scanned_at >= since));
      if (original) {
        results[i] = original;
        continue;
      }
      const replayed = decided(scan, 'replayed', null);
      results[i] = replayed;
      inserts.push(replayed);
    }
  }

  await verificationsRepo.writeOutcomes(trx, advances, sessions, inserts);
  // Recorded before COMMIT: should it fail, the next batch's guard finds the chips changed and locks them.
  seen?.record(chips.values());
  return results as VerificationRow[];
}

/**
 * The chips as this process's last batches committed them (PostgreSQL). A batch whose scans are all
 * fresh against them is decided without locking and written in one statement, without BEGIN or COMMIT
 * (three round trips fewer): the statement's guard (verifications/repository.ts) writes nothing if another
 * process or host, a rewrite, an import or a PATCH of session_duration has changed one of its chips since,
 * and the batch is then decided again under the row locks. So this map is a guess that saves round trips,
 * never the source of a decision that gets written.
 */
export class SeenChips {
  private readonly chips = new Map<string, LockedChip>();

  constructor(private readonly limit = 100_000) {}

  /** Copies of the batch's chips, or null if one of them is not known. */
  take(tagIds: Iterable<string>): Map<string, LockedChip> | null {
    const out = new Map<string, LockedChip>();
    for (const id of tagIds) {
      const chip = this.chips.get(id);
      if (!chip) return null;
      out.set(id, { ...chip });
    }
    return out;
  }

  record(chips: Iterable<LockedChip>): void {
    for (const chip of chips) {
      if (this.chips.size >= this.limit && !this.chips.has(chip.tag_id)) this.chips.clear();
      this.chips.set(chip.tag_id, { ...chip });
    }
  }

  forget(tagIds: Iterable<string>): void {
    for (const id of tagIds) this.chips.delete(id);
  }
}

/** PostgreSQL: the batch decided on the chips as `seen` holds them and written in one statement; null when that cannot be. */
export async function writeBatchAsSeen(db: Executor, scans: Scan[], seen: SeenChips): Promise<VerificationRow[] | null> {
  const tagIds = tagsOf(scans);
  const chips = seen.take(tagIds);
  if (!chips) return null;
  const { results, inserts, sessions, advances, losers } = decide(scans, chips);
  // A reload or a replay needs the stored verifications: left to the locking path.
  if (losers.length > 0) return null;
  try {
    await verificationsRepo.writeOutcomes(db, advances, sessions, inserts);
  } catch (error) {
    if (!verificationsRepo.isStaleChips(error)) throw error;
    seen.forget(tagIds);
    return null;
  }
  seen.record(chips.values());
  return results as VerificationRow[];
}

/** Scans for the group commit of one engine; on PostgreSQL with this process's view of its chips. */
export function scanWrites(dialect: Dialect): WriteKind<Scan, VerificationRow> {
  const seen = dialect === 'postgres' ? new SeenChips() : undefined;
  return {
    kinds: ['authentic', 'failed'],
    lockKey: (scan) => (scan.kind === 'authentic' ? scan.row.tag_id : null),
    write: (trx, scans) => writeBatch(trx, scans, seen),
    ...(seen ? { writeUnlocked: (db: Executor, scans: Scan[]) => writeBatchAsSeen(db, scans, seen) } : {}),
    // A scan's own verification crosses back as what the batch decided (nothing for a failed scan: it is
    // stored as it came); a reload's original crosses whole.
    carry: (scan, row) => (row.id !== scan.row.id ? row : scan.kind === 'failed' ? null : [row.reason, row.session_id]),
    restore: (scan, carried) => {
      if (carried === null) return scan.row;
      if (!Array.isArray(carried)) return carried as VerificationRow;
      const [reason, sessionId] = carried as ['ok' | 'replayed', string | null];
      return decided(scan as AuthenticScan, reason, sessionId);
    },
  };
}
