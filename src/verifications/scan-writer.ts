// Group commit of scan outcomes. Every verification must be durable before it
// is answered (a lost accepted counter would let its URL be accepted again), and
// one commit costs a disk flush; so the scans that arrive while a commit is under
// way are written together in the next one. Inside a batch, scans are decided in
// arrival order against the chip rows locked for the batch, which makes the
// counter check-and-advance atomic across requests, batches and processes.
// On a SQLite file the batches are decided and committed by a thread with its
// own write connection (scan-writer-thread.ts): the commit's fsync and the
// statements leave the event loop free for HTTP and chip cryptography (issue #10).
// The extension API's challenge and proof writes (src/extension/writes.ts) go
// through the same queue, thread and commits (issue #9).
import { Worker } from 'node:worker_threads';
import type { Db, Executor } from '../db/database.js';
import { metricsOf } from '../metrics.js';
import { placeGenuineScan } from '../sessions/service.js';
import type { SessionRow } from '../sessions/repository.js';
import type { World } from '../world.js';
import type { LockedChip } from '../tag-chips/repository.js';
import { findGenuineByUrlHashes, type VerificationRow } from './repository.js';
import { isStaleChips, lockBatchChips, writeBatchOutcomes, type ChipAdvance } from './scan-statements.js';
import { applyExtensionWrite, isExtensionWrite, type ExtensionOutcome, type ExtensionWrite } from '../extension/writes.js';

/** A scan whose SUN message is authentic: genuine if its counter is fresh, else a reload or a replay. Plain data (it may cross to the writer thread). */
export interface AuthenticScan {
  kind: 'authentic';
  world: World;
  tagId: string;
  generation: number;
  counter: number;
  urlHash: string;
  at: number;
  /** The verification to store, but for its reason, genuineness and session. */
  row: VerificationRow;
}

/** A scan already judged (bad_cmac, bad_picc_data, uid_mismatch): stored as is. */
export interface FailedScan {
  kind: 'failed';
  row: VerificationRow;
}

export type Scan = AuthenticScan | FailedScan;

/** What one batch commits: scans and extension writes, in any mix. */
export type Write = Scan | ExtensionWrite;
export type WriteResult = VerificationRow | ExtensionOutcome;

const decided = (scan: AuthenticScan, reason: 'ok' | 'replayed', sessionId: string | null): VerificationRow => ({
  ...scan.row,
  scanned_at: scan.at,
  genuine: reason === 'ok' ? 1 : 0,
  reason,
  session_id: sessionId,
});

interface Pending {
  write: Write;
  resolve(result: WriteResult): void;
  reject(error: unknown): void;
}

/** The tag whose chip row a write locks, if any. */
const tagOf = (write: Write): string | null => (write.kind === 'authentic' ? write.tagId : null);

/** The tags whose chips a batch reads, each once. */
const tagsOf = (writes: Write[]): string[] => [...new Set(writes.map(tagOf).filter((tag) => tag !== null))];

const MAX_BATCH = 500;

/** A batch's decisions against its chips; `losers` are the authentic scans not fresh (a reload or a replay). */
interface Decision {
  results: (VerificationRow | undefined)[];
  inserts: VerificationRow[];
  sessions: SessionRow[];
  advances: ChipAdvance[];
  acceptedHere: Map<string, VerificationRow>;
  losers: number[];
}

/** Decides the fresh scans in arrival order against `chips`, advancing them in place. */
function decide(scans: Scan[], chips: Map<string, LockedChip>): Decision {
  const d: Decision = { results: new Array(scans.length), inserts: [], sessions: [], advances: [], acceptedHere: new Map(), losers: [] };
  const before = new Map<LockedChip, LockedChip>();
  scans.forEach((scan, i) => {
    if (scan.kind === 'failed') {
      d.results[i] = scan.row;
      d.inserts.push(scan.row);
      return;
    }
    const chip = chips.get(scan.tagId);
    // A scan checked against another write generation's keys (a cached lookup
    // that predates a rewrite) is not accepted; nor is a counter not above the last.
    const fresh = chip !== undefined && chip.write_generation === scan.generation && (chip.last_counter === null || scan.counter > chip.last_counter);
    if (!fresh) {
      d.losers.push(i);
      return;
    }
    if (!before.has(chip)) before.set(chip, { ...chip });
    chip.last_counter = scan.counter;
    const { sessionId, opened } = placeGenuineScan(scan.world, { id: scan.tagId, session_duration: chip.session_duration }, chip, scan.at);
    if (opened) d.sessions.push(opened);
    const row = decided(scan, 'ok', sessionId);
    d.results[i] = row;
    d.inserts.push(row);
    d.acceptedHere.set(`${scan.tagId} ${scan.urlHash}`, row);
  });
  for (const [after, was] of before) d.advances.push({ before: was, after });
  return d;
}

/** Decides and writes one batch in the caller's transaction; returns each scan's verification. */
export async function writeBatch(trx: Executor, scans: Scan[], seen?: SeenChips): Promise<VerificationRow[]> {
  const chips = new Map((await lockBatchChips(trx, tagsOf(scans))).map((c) => [c.tag_id, c]));
  const { results, inserts, sessions, advances, acceptedHere, losers } = decide(scans, chips);

  if (losers.length > 0) {
    const lost = losers.map((i) => scans[i] as AuthenticScan);
    // A reload (or a simultaneous duplicate) within session_duration answers the original.
    const sinceOf = (scan: AuthenticScan) => scan.at - (chips.get(scan.tagId)?.session_duration ?? 0) * 1_000_000;
    const earliest = Math.min(...lost.map(sinceOf));
    const earlier = await findGenuineByUrlHashes(trx, [...new Set(lost.map((s) => s.tagId))], [...new Set(lost.map((s) => s.urlHash))], earliest);
    for (const i of losers) {
      const scan = scans[i] as AuthenticScan;
      const since = sinceOf(scan);
      const original =
        acceptedHere.get(`${scan.tagId} ${scan.urlHash}`) ??
        earlier.find((v) => v.tag_id === scan.tagId && v.url_hash === scan.urlHash && v.scanned_at >= since);
      if (original) {
        results[i] = original;
        continue;
      }
      const row = decided(scan, 'replayed', null);
      results[i] = row;
      inserts.push(row);
    }
  }

  await writeBatchOutcomes(trx, advances, sessions, inserts);
  // Recorded before COMMIT: should it fail, the next batch's guard finds the chips changed and locks them.
  seen?.record(chips.values());
  return results as VerificationRow[];
}

/**
 * The chips as this process's last batches committed them (PostgreSQL). A batch whose scans are all
 * fresh against them is decided without locking and written in one statement, without BEGIN or COMMIT
 * (three round trips fewer): the statement's guard (scan-statements.ts) writes nothing if another process
 * or host, a rewrite, an import or a PATCH of session_duration has changed one of its chips since, and
 * the batch is then decided again under the row locks. So this map is a guess that saves round trips,
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
 * PostgreSQL: the batch decided on the chips as `seen` holds them and written in one statement; null
 * when that cannot be (an extension write, an unknown chip, a scan not fresh, a chip changed since).
 */
export async function writeBatchAsSeen(db: Executor, writes: Write[], seen: SeenChips): Promise<VerificationRow[] | null> {
  if (writes.some(isExtensionWrite)) return null;
  const scans = writes as Scan[];
  const tagIds = tagsOf(scans);
  const chips = seen.take(tagIds);
  if (!chips) return null;
  const { results, inserts, sessions, advances, losers } = decide(scans, chips);
  // A reload or a replay needs the stored verifications: left to the locking path.
  if (losers.length > 0) return null;
  try {
    await writeBatchOutcomes(db, advances, sessions, inserts);
  } catch (error) {
    if (!isStaleChips(error)) throw error;
    seen.forget(tagIds);
    return null;
  }
  seen.record(chips.values());
  return results as VerificationRow[];
}

/** Decides and writes one batch of scans and extension writes in the caller's transaction; one result per write. */
export async function writeMixedBatch(trx: Executor, writes: Write[], seen?: SeenChips): Promise<WriteResult[]> {
  const scans: Scan[] = [];
  const results: WriteResult[] = new Array(writes.length);
  for (const write of writes) if (!isExtensionWrite(write)) scans.push(write);
  const rows = scans.length > 0 ? await writeBatch(trx, scans, seen) : [];
  let next = 0;
  for (let i = 0; i < writes.length; i++) {
    const write = writes[i]!;
    results[i] = isExtensionWrite(write) ? await applyExtensionWrite(trx, write) : rows[next++]!;
  }
  return results;
}

// A build runs dist (.js). From the sources (tsx: development, tests, benches)
// a thread does not inherit tsx's loader, so it registers it before importing.
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const THREAD_URL = new URL(FROM_SOURCES ? './scan-writer-thread.ts' : './scan-writer-thread.js', import.meta.url);
const newThread = (workerData: unknown) =>
  FROM_SOURCES
    ? new Worker(`import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(THREAD_URL.href)}); });`, {
        eval: true,
        workerData,
      })
    : new Worker(THREAD_URL, { workerData });

interface ThreadAnswer {
  id: number;
  /** The batch's transaction has ended; its rows follow once the WAL is on disk. */
  committed?: true;
  rows?: WriteResult[];
  /** With `rows`: seconds from the commit to the end of the fsync that made it durable. */
  fsyncWait?: number;
  /** `committed`: the transaction ended, the fsync after it failed (not to be tried again). */
  error?: { message: string; code?: string; committed?: true };
}

interface ThreadWaiter {
  committed(): void;
  resolve(rows: WriteResult[]): void;
  reject(error: unknown): void;
}

/** A batch whose transaction ended but whose durability is unknown: trying it again would decide its scans twice. */
class CommittedBatchError extends Error {}

/** The SQLite writer thread, started on the first batch and again after a crash. */
class WriterThread {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly waiting = new Map<number, ThreadWaiter>();

  constructor(
    private readonly file: string,
    private readonly observeFsyncWait: (seconds: number) => void,
  ) {}

  private start(): Worker {
    const worker = newThread({ path: this.file });
    worker.on('message', (answer: ThreadAnswer) => {
      const waiter = this.waiting.get(answer.id);
      if (answer.committed) return waiter?.committed();
      this.waiting.delete(answer.id);
      if (this.waiting.size === 0) worker.unref();
      if (answer.error) {
        const { message, code, committed } = answer.error;
        waiter?.reject(Object.assign(committed ? new CommittedBatchError(message) : new Error(message), code ? { code } : {}));
      } else {
        this.observeFsyncWait(answer.fsyncWait!);
        waiter?.resolve(answer.rows!);
      }
    });
    const fail = (error: unknown) => {
      if (this.worker !== worker) return;
      this.worker = null;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the scan writer thread exited with code ${code}`)));
    return worker;
  }

  /** Resolves once the batch is durable; `committed` is called as soon as its transaction has ended. */
  commit(writes: Write[], committed: () => void): Promise<WriteResult[]> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    // Referenced only while a batch is out: an idle thread keeps no process alive.
    if (this.waiting.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { committed, resolve, reject });
      worker.postMessage({ id, writes });
    });
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    await new Promise((resolve) => {
      worker.once('exit', resolve);
      worker.ref();
      worker.postMessage('stop');
    });
  }
}

export class ScanWriter {
  private queue: Pending[] = [];
  private running = 0;
  private readonly thread: WriterThread | null;
  /** PostgreSQL: the chips as committed here, for batches written in one statement. */
  private readonly seen: SeenChips | undefined;

  /** Batches committed at once: SQLite has one writer; PostgreSQL overlaps a few (row locks keep them apart). */
  private readonly parallel: number;

  constructor(
    private readonly db: Db,
    useThread = true,
  ) {
    this.parallel = db.dialect === 'postgres' ? 3 : 1;
    this.seen = db.dialect === 'postgres' ? new SeenChips() : undefined;
    this.thread = useThread && db.dialect === 'sqlite' && db.file !== undefined ? new WriterThread(db.file, (seconds) => metricsOf(db).scanFsyncWait.observe(seconds)) : null;
    if (this.thread) db.atClose(() => this.thread!.stop());
  }

  private scheduled = false;

  write(scan: Scan): Promise<VerificationRow> {
    return this.enqueue(scan) as Promise<VerificationRow>;
  }

  /** An extension write (challenge, proof), committed with whatever else is queued. */
  writeExtension(write: ExtensionWrite): Promise<ExtensionOutcome> {
    return this.enqueue(write) as Promise<ExtensionOutcome>;
  }

  private enqueue(write: Write): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
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

  /** Tags with a scan in a batch being committed, and how many such scans. */
  private readonly inFlight = new Map<string, number>();

  private pump(): void {
    while (this.running < this.parallel && this.queue.length > 0) {
      const batch = this.takeBatch();
      if (batch.length === 0) return;
      this.running++;
      // The batch's place (and its tags) is free once its transaction has ended: on the writer thread that
      // is before its fsync, which then overlaps the next batch's statements (batches commit in order there).
      let freed = false;
      const free = () => {
        if (freed) return;
        freed = true;
        for (const p of batch) {
          const tag = tagOf(p.write);
          if (tag !== null) this.release(tag);
        }
        this.running--;
        this.pump();
      };
      void this.commit(batch, free).finally(free);
    }
  }

  /**
   * The next batch in queue order, leaving out the scans of tags that a batch
   * still being committed holds (and every later scan of those tags): two
   * overlapping batches could take a tag's row lock in either order, and the
   * later scan must not be decided first (issue #10).
   */
  private takeBatch(): Pending[] {
    if (this.inFlight.size === 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      this.holdAll(batch);
      return batch;
    }
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const busy = new Set(this.inFlight.keys());
    for (const p of this.queue) {
      const tag = tagOf(p.write);
      if (batch.length === MAX_BATCH || (tag !== null && busy.has(tag))) rest.push(p);
      else batch.push(p);
    }
    this.queue = rest;
    this.holdAll(batch);
    return batch;
  }

  private holdAll(batch: Pending[]): void {
    for (const p of batch) {
      const tag = tagOf(p.write);
      if (tag !== null) this.hold(tag);
    }
  }

  private hold(tagId: string): void {
    this.inFlight.set(tagId, (this.inFlight.get(tagId) ?? 0) + 1);
  }

  private release(tagId: string): void {
    const n = this.inFlight.get(tagId)! - 1;
    if (n === 0) this.inFlight.delete(tagId);
    else this.inFlight.set(tagId, n);
  }

  private async commitHere(writes: Write[]): Promise<WriteResult[]> {
    const { seen } = this;
    if (seen) {
      const asSeen = await writeBatchAsSeen(this.db.kysely, writes, seen);
      metricsOf(this.db).scanBatches.inc({ path: asSeen ? 'as_seen' : 'locked' });
      if (asSeen) return asSeen;
    }
    return this.db.kysely.transaction().execute((trx) => writeMixedBatch(trx, writes, seen));
  }

  private async commit(batch: Pending[], committed: () => void = () => undefined): Promise<void> {
    try {
      const writes = batch.map((p) => p.write);
      const started = performance.now();
      const rows = this.thread ? await this.thread.commit(writes, committed) : await this.commitHere(writes);
      const metrics = metricsOf(this.db);
      metrics.scanCommitDuration.observe((performance.now() - started) / 1000);
      metrics.scanBatchSize.observe(batch.length);
      batch.forEach((p, i) => p.resolve(rows[i]!));
    } catch (error) {
      if (batch.length === 1 || error instanceof CommittedBatchError) return batch.forEach((p) => p.reject(error));
      // One bad scan must not fail the others: each is tried again on its own,
      // one after the other so that a tag's scans keep their order.
      for (const p of batch) await this.commit([p]);
    }
  }
}

const writers = new WeakMap<Db, ScanWriter>();

/** The Db's group commit; `thread` (SQLite files) is read when the first scan creates it. */
export function scanWriter(db: Db, thread = true): ScanWriter {
  let writer = writers.get(db);
  if (!writer) writers.set(db, (writer = new ScanWriter(db, thread)));
  return writer;
}
