// Scans as a kind of group-commit write (src/db/group-commit.ts). Every
// verification must be durable before it is answered (a lost accepted counter
// would let its URL be accepted again). Inside a batch, scans are decided in
// arrival order against the chip rows locked for the batch (on SQLite's commit thread,
// those its own committed batches left, while no other connection has written), which makes the
// counter check-and-advance atomic across requests, batches and processes. Refused scans lock their
// chip too, so that a tag's refused scans are counted in one order however many processes take them
// (replay_burst); they and flagged scans are rare, and take the locking path on PostgreSQL.
import { sqliteDataVersion, type Dialect, type Executor } from '../db/database.js';
import { BURST_WINDOW_MICROS, isBurst } from '../signals/index.js';
import { signalsOf, storedSignals } from '../signals/index.js';
import { announceFlagged } from './flagged-events.js';
import { groupBy } from '../group-by.js';
import type { WriteKind } from '../db/group-commit.js';
import * as chipsRepo from '../tag-chips/index.js';
import type { LockedChip } from '../tag-chips/index.js';
import { decide, decided, type AuthenticScan, type Scan } from './decide.js';
import * as verificationsRepo from './repository.js';
import type { VerificationRow } from './repository.js';

/** The tags whose chips a batch reads or locks, each once. */
const tagsOf = (scans: Scan[]): string[] => [...new Set(scans.map((scan) => scan.row.tag_id))];

/** The verifications a batch stores anew (not a reload's original), with their scan, in arrival order. */
const storedAnew = (scans: Scan[], results: (VerificationRow | undefined)[]) =>
  scans.flatMap((scan, i) => (results[i] !== undefined && results[i].id === scan.row.id ? [{ scan, row: results[i] }] : []));

/** Adds replay_burst to the batch's refused scans that make one, against the tag's stored refused scans. */
async function markBursts(trx: Executor, stored: { scan: Scan; row: VerificationRow }[]): Promise<void> {
  const refusedByTag = groupBy(
    stored.filter(({ row }) => row.genuine === 0),
    ({ row }) => row.tag_id,
  );
  for (const [tagId, refused] of refusedByTag) {
    const after = refused[0]!.row.scanned_at - BURST_WINDOW_MICROS;
    // The newest ones are those that can still be in a window: at most the threshold of them can matter.
    const times = await verificationsRepo.refusedTimes(trx, tagId, after, Math.max(...refused.map(({ scan }) => scan.limits.replay_burst)));
    for (const { row, scan } of refused) {
      if (isBurst(row.scanned_at, times, scan.limits)) row.signals = storedSignals([...signalsOf(row.signals), 'replay_burst']);
      times.push(row.scanned_at);
    }
  }
}

/**
 * What a feature above this one does with a batch's flagged verifications in the same commit, under their
 * tags' chip locks (the cases feature opens and joins cases: src/cases/opening.ts). Given by the composition
 * root (src/write-kinds.ts), so that this feature need not know it.
 */
export type FlaggedScans = (trx: Executor, rows: VerificationRow[]) => Promise<void>;

/** The chips of these tags, read (and on PostgreSQL locked) in the caller's transaction. */
const lockedChips = async (trx: Executor, tagIds: string[]) => new Map((await chipsRepo.lockForBatch(trx, tagIds)).map((c) => [c.tag_id, c]));

/** Decides and writes one batch in the caller's transaction; returns each scan's verification. */
export async function writeBatch(trx: Executor, scans: Scan[], seen?: SeenChips | CommittedChips, flaggedScans?: FlaggedScans): Promise<VerificationRow[]> {
  const chips = seen instanceof CommittedChips ? await seen.read(trx, tagsOf(scans)) : await lockedChips(trx, tagsOf(scans));
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

  const stored = storedAnew(scans, results);
  await markBursts(trx, stored);
  await verificationsRepo.writeOutcomes(trx, advances, sessions, inserts);
  const flagged = stored.flatMap(({ row }) => (row.signals === null ? [] : [row]));
  await announceFlagged(trx, flagged);
  if (flaggedScans && flagged.length > 0) await flaggedScans(trx, flagged);
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

/**
 * SQLite's commit thread: the chips as its committed batches left them. Its connection is the only one that writes
 * scans to the file, and `PRAGMA data_version`, read under the batch's write lock, changes exactly when another
 * connection has committed since (a rewrite, an import, a PATCH of session_duration, another process's commit
 * thread): then everything is read again. While it holds, a chip known here is what the batch's SELECT would read,
 * so a batch reads only the chips it does not know. A batch's chips count only once its transaction has committed
 * (`committed`, which the commit thread alone calls): a batch rolled back leaves what was known before it.
 */
export class CommittedChips {
  private readonly chips = new Map<string, LockedChip>();
  private version: number | null = null;
  private staged: LockedChip[] | null = null;

  constructor(private readonly limit = 100_000) {}

  /** The batch's chips, in its transaction: copies of the known ones, the others read. */
  async read(trx: Executor, tagIds: string[]): Promise<Map<string, LockedChip>> {
    this.staged = null;
    const version = await sqliteDataVersion(trx);
    if (version !== this.version) {
      this.chips.clear();
      this.version = version;
    }
    const out = new Map<string, LockedChip>();
    const unknown: string[] = [];
    for (const id of tagIds) {
      const chip = this.chips.get(id);
      if (chip) out.set(id, { ...chip });
      else unknown.push(id);
    }
    if (unknown.length > 0) for (const [id, chip] of await lockedChips(trx, unknown)) out.set(id, chip);
    return out;
  }

  /** The batch's chips as decided, to be known once its transaction commits. */
  record(chips: Iterable<LockedChip>): void {
    this.staged = [...chips].map((chip) => ({ ...chip }));
  }

  committed(): void {
    if (this.staged === null) return;
    if (this.chips.size + this.staged.length > this.limit) this.chips.clear();
    for (const chip of this.staged) this.chips.set(chip.tag_id, chip);
    this.staged = null;
  }
}

/** PostgreSQL: the batch decided on the chips as `seen` holds them and written in one statement; null when that cannot be. */
export async function writeBatchAsSeen(db: Executor, scans: Scan[], seen: SeenChips): Promise<VerificationRow[] | null> {
  const tagIds = tagsOf(scans);
  const chips = seen.take(tagIds);
  if (!chips) return null;
  const { results, inserts, sessions, advances, losers } = decide(scans, chips);
  // A reload or a replay needs the stored verifications, a refused scan the tag's other refused ones, and a
  // flagged scan's event the transaction: each is left to the locking path.
  if (losers.length > 0 || inserts.some((row) => row.genuine === 0 || row.signals !== null)) return null;
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
export function scanWrites(dialect: Dialect, flaggedScans?: FlaggedScans): WriteKind<Scan, VerificationRow> {
  const seen = dialect === 'postgres' ? new SeenChips() : undefined;
  const committed = dialect === 'sqlite' ? new CommittedChips() : undefined;
  return {
    kinds: ['authentic', 'failed'],
    lockKey: (scan) => scan.row.tag_id,
    write: (trx, scans) => writeBatch(trx, scans, seen ?? committed, flaggedScans),
    ...(seen ? { writeUnlocked: (db: Executor, scans: Scan[]) => writeBatchAsSeen(db, scans, seen) } : {}),
    ...(committed ? { committed: () => committed.committed() } : {}),
    // A scan's own verification crosses back as what the batch decided (a failed scan is stored as it came
    // but for its signals); a reload's original crosses whole.
    carry: (scan, row) =>
      row.id !== scan.row.id ? row : scan.kind === 'failed' ? (row.signals === null ? null : row.signals) : [row.reason, row.session_id, row.signals],
    restore: (scan, carried) => {
      if (carried === null) return scan.row;
      if (typeof carried === 'string') return { ...scan.row, signals: carried };
      if (!Array.isArray(carried)) return carried as VerificationRow;
      const [reason, sessionId, signals] = carried as ['ok' | 'replayed', string | null, string | null];
      return decided(scan as AuthenticScan, reason, sessionId, signals);
    },
  };
}
