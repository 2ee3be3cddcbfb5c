// Group commit of scan outcomes. Every verification must be durable before it
// is answered (a lost accepted counter would let its URL be accepted again), and
// one commit costs a disk flush; so the scans that arrive while a commit is under
// way are written together in the next one. Inside a batch, scans are decided in
// arrival order against the chip rows locked for the batch, which makes the
// counter check-and-advance atomic across requests, batches and processes.
import type { Db, Executor } from '../db/database.js';
import { placeGenuineScan } from '../sessions/service.js';
import type { SessionRow } from '../sessions/repository.js';
import { insertSessions } from '../sessions/repository.js';
import type { World } from '../tags/repository.js';
import { lockChips, saveChipProgress, type ChipRow } from '../tag-chips/repository.js';
import { findGenuineByUrlHashes, insertVerifications, type VerificationRow } from './repository.js';

/** A scan whose SUN message is authentic: genuine if its counter is fresh, else a reload or a replay. */
export interface AuthenticScan {
  kind: 'authentic';
  world: World;
  tagId: string;
  generation: number;
  counter: number;
  urlHash: string;
  at: number;
  /** The verification to store, given its reason and session. */
  record(reason: 'ok' | 'replayed', sessionId: string | null): VerificationRow;
}

/** A scan already judged (bad_cmac, bad_picc_data, uid_mismatch): stored as is. */
export interface FailedScan {
  kind: 'failed';
  row: VerificationRow;
}

export type Scan = AuthenticScan | FailedScan;

interface Pending {
  scan: Scan;
  resolve(row: VerificationRow): void;
  reject(error: unknown): void;
}

const MAX_BATCH = 500;

/** Decides and writes one batch in the caller's transaction; returns each scan's verification. */
async function writeBatch(trx: Executor, scans: Scan[], forUpdate: boolean): Promise<VerificationRow[]> {
  const authentic = scans.filter((s): s is AuthenticScan => s.kind === 'authentic');
  const chips = new Map((await lockChips(trx, [...new Set(authentic.map((s) => s.tagId))], forUpdate)).map((c) => [c.tag_id, c]));
  const results: (VerificationRow | undefined)[] = new Array(scans.length);
  const inserts: VerificationRow[] = [];
  const sessions: SessionRow[] = [];
  const dirty = new Set<ChipRow>();
  const acceptedHere = new Map<string, VerificationRow>();
  const losers: number[] = [];

  scans.forEach((scan, i) => {
    if (scan.kind === 'failed') {
      results[i] = scan.row;
      inserts.push(scan.row);
      return;
    }
    const chip = chips.get(scan.tagId);
    // A scan checked against another write generation's keys (a cached lookup
    // that predates a rewrite) is not accepted; nor is a counter not above the last.
    const fresh = chip !== undefined && chip.write_generation === scan.generation && (chip.last_counter === null || scan.counter > chip.last_counter);
    if (!fresh) {
      losers.push(i);
      return;
    }
    chip.last_counter = scan.counter;
    const { sessionId, opened } = placeGenuineScan(scan.world, { id: scan.tagId, session_duration: chip.session_duration }, chip, scan.at);
    if (opened) sessions.push(opened);
    dirty.add(chip);
    const row = scan.record('ok', sessionId);
    results[i] = row;
    inserts.push(row);
    acceptedHere.set(`${scan.tagId} ${scan.urlHash}`, row);
  });

  if (losers.length > 0) {
    const lost = losers.map((i) => scans[i] as AuthenticScan);
    const earlier = await findGenuineByUrlHashes(trx, [...new Set(lost.map((s) => s.tagId))], [...new Set(lost.map((s) => s.urlHash))]);
    for (const i of losers) {
      const scan = scans[i] as AuthenticScan;
      // A reload (or a simultaneous duplicate) within session_duration answers the original.
      const since = scan.at - (chips.get(scan.tagId)?.session_duration ?? 0) * 1_000_000;
      const original =
        acceptedHere.get(`${scan.tagId} ${scan.urlHash}`) ??
        earlier.find((v) => v.tag_id === scan.tagId && v.url_hash === scan.urlHash && v.scanned_at >= since);
      if (original) {
        results[i] = original;
        continue;
      }
      const row = scan.record('replayed', null);
      results[i] = row;
      inserts.push(row);
    }
  }

  await saveChipProgress(trx, [...dirty]);
  await insertSessions(trx, sessions);
  await insertVerifications(trx, inserts);
  return results as VerificationRow[];
}

export class ScanWriter {
  private queue: Pending[] = [];
  private running = 0;

  constructor(
    private readonly db: Db,
    /** Batches committed at once: SQLite has one writer; PostgreSQL overlaps a few (row locks keep them apart). */
    private readonly parallel = db.dialect === 'postgres' ? 3 : 1,
  ) {}

  private scheduled = false;

  write(scan: Scan): Promise<VerificationRow> {
    return new Promise((resolve, reject) => {
      this.queue.push({ scan, resolve, reject });
      // Start after the current turn of the event loop, so that the scans of
      // every request read in this turn share the commit.
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  private pump(): void {
    while (this.running < this.parallel && this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      this.running++;
      void this.commit(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  private async commit(batch: Pending[]): Promise<void> {
    const forUpdate = this.db.dialect === 'postgres';
    try {
      const rows = await this.db.kysely.transaction().execute((trx) => writeBatch(trx, batch.map((p) => p.scan), forUpdate));
      batch.forEach((p, i) => p.resolve(rows[i]!));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      // One bad scan must not fail the others: each is tried again on its own.
      await Promise.all(batch.map((p) => this.commit([p])));
    }
  }
}

const writers = new WeakMap<Db, ScanWriter>();

export function scanWriter(db: Db): ScanWriter {
  let writer = writers.get(db);
  if (!writer) writers.set(db, (writer = new ScanWriter(db)));
  return writer;
}
