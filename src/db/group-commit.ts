// Group commit. A write that must be durable before it is answered costs a disk
// flush; so the writes that arrive while a commit is under way are written
// together in the next one (docs/throughput.md). What is written, and how a batch
// is decided, belongs to each kind of write (scans, extension writes…), registered
// with `writeKindsOf`; this module only queues, batches and commits them, here or
// on a SQLite file's commit thread (src/db/commit-thread.ts).
import type { Db, Dialect, Executor } from './database.js';
import type { Metrics } from '../metrics.js';
import { CommittedBatchError, CommitThread } from './commit-thread.js';

/** One kind of write the group commit batches. Writes are plain data: they may cross to the commit thread. */
export interface WriteKind<W extends { kind: string } = { kind: string }, R = unknown> {
  kinds: readonly string[];
  /** The key a write holds while its batch commits: a later write with the same key waits for the next batch. */
  lockKey?(write: W): string | null;
  /** Decides and writes these writes, in order, in the caller's transaction; one result per write. */
  write(trx: Executor, writes: W[]): Promise<R[]>;
  /** The writes written without a transaction of their own, or null when that cannot be (then `write` runs). */
  writeUnlocked?(db: Executor, writes: W[]): Promise<R[] | null>;
  /**
   * A result as it crosses back from the commit thread (`carry`, there) and as the main thread rebuilds it
   * from its write (`restore`): only what the write does not already hold. Without them it is cloned whole.
   */
  carry?(write: W, result: R): unknown;
  restore?(write: W, carried: unknown): R;
  /**
   * On a SQLite commit thread, once the transaction that wrote these writes has committed: that connection writes
   * nothing else, so what the kind kept of its last `write` is now what the database holds. Never called elsewhere.
   */
  committed?(): void;
}

/** Every kind of one deployment, as the group commit (and the commit thread) sees them. */
export interface WriteKinds {
  lockKey(write: { kind: string }): string | null;
  write(trx: Executor, writes: { kind: string }[]): Promise<unknown[]>;
  /** Present when a kind can write without a transaction on this engine; null when this batch cannot. */
  writeUnlocked?(db: Executor, writes: { kind: string }[]): Promise<unknown[] | null>;
  /** The batch's results as they cross from the commit thread, and back into results on the main thread. */
  carry(writes: { kind: string }[], results: unknown[]): unknown[];
  restore(writes: { kind: string }[], carried: unknown[]): unknown[];
  /** The commit thread's word that the transaction writing `writes` has committed (WriteKind.committed). */
  committed(writes: { kind: string }[]): void;
}

/** The module the commit thread imports exports this: the kinds of writes, for one engine. */
export type CreateWriteKinds = (dialect: Dialect) => WriteKinds;

export function writeKindsOf(kinds: WriteKind<any, unknown>[]): WriteKinds {
  const byName = new Map<string, WriteKind<any, unknown>>();
  for (const kind of kinds) for (const name of kind.kinds) byName.set(name, kind);
  const kindOf = (write: { kind: string }) => {
    const kind = byName.get(write.kind);
    if (!kind) throw new Error(`no writer for writes of kind ${write.kind}`);
    return kind;
  };
  const unlocked = kinds.some((kind) => kind.writeUnlocked !== undefined);
  return {
    lockKey: (write) => kindOf(write).lockKey?.(write) ?? null,
    carry: (writes, results) =>
      results.map((result, i) => {
        const kind = kindOf(writes[i]!);
        return kind.carry ? kind.carry(writes[i]!, result) : result;
      }),
    restore: (writes, carried) =>
      carried.map((value, i) => {
        const kind = kindOf(writes[i]!);
        return kind.restore ? kind.restore(writes[i]!, value) : value;
      }),
    committed(writes) {
      for (const kind of kinds) if (kind.committed && writes.some((write) => kindOf(write) === kind)) kind.committed();
    },
    // A mixed batch: each kind's writes together, kinds in the order they were registered.
    async write(trx, writes) {
      const results: unknown[] = new Array(writes.length);
      for (const kind of kinds) {
        const mine = writes.flatMap((write, i) => (kindOf(write) === kind ? [i] : []));
        if (mine.length === 0) continue;
        const done = await kind.write(
          trx,
          mine.map((i) => writes[i]!),
        );
        mine.forEach((i, n) => (results[i] = done[n]));
      }
      return results;
    },
    ...(unlocked && {
      // Only a batch of one kind that can: a mixed batch takes the transaction.
      async writeUnlocked(db: Executor, writes: { kind: string }[]) {
        const kind = kindOf(writes[0]!);
        if (!kind.writeUnlocked || writes.some((w) => kindOf(w) !== kind)) return null;
        return kind.writeUnlocked(db, writes);
      },
    }),
  };
}

interface Pending {
  write: { kind: string };
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

const MAX_BATCH = 500;

export interface GroupCommitOptions {
  /** The module exporting `createWriteKinds` (a CreateWriteKinds), for the SQLite commit thread. */
  writers: URL;
  /** SQLite files: decide and commit on a commit thread. */
  thread: boolean;
  metrics: Metrics;
}

export class GroupCommit {
  private queue: Pending[] = [];
  private running = 0;
  private scheduled = false;
  private readonly thread: CommitThread | null;
  /** Batches committed at once: SQLite has one writer; PostgreSQL overlaps a few (row locks keep them apart). */
  private readonly parallel: number;
  /**
   * The lock keys of each batch being committed, one Set per batch, dropped whole: one long-lived Map
   * gaining and losing a key per write leaves old-generation garbage (docs/throughput.md#memory).
   */
  private readonly inFlight: Set<string>[] = [];

  constructor(
    private readonly db: Db,
    private readonly writer: WriteKinds,
    private readonly options: GroupCommitOptions,
  ) {
    this.parallel = db.dialect === 'postgres' ? 3 : 1;
    const file = db.dialect === 'sqlite' ? db.file : undefined;
    this.thread =
      options.thread && file !== undefined
        ? new CommitThread({ path: file, writers: options.writers.href }, (seconds) => options.metrics.scanFsyncWait.observe(seconds))
        : null;
    if (this.thread) db.atClose(() => this.thread!.stop());
  }

  /** Resolves with the write's result once its batch is durable. */
  submit<R>(write: { kind: string }): Promise<R> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve: resolve as (result: unknown) => void, reject });
      // Start after the current turn of the event loop, so that the writes of
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
      const batch = this.takeBatch();
      if (batch.length === 0) return;
      this.running++;
      // The batch's place (and its keys) is free once its transaction has ended: on the commit thread that
      // is before its fsync, which then overlaps the next batch's statements (batches commit in order there).
      const keys = this.hold(batch);
      let freed = false;
      const free = () => {
        if (freed) return;
        freed = true;
        this.inFlight.splice(this.inFlight.indexOf(keys), 1);
        this.running--;
        this.pump();
      };
      void this.commit(batch, free).finally(free);
    }
  }

  /**
   * The next batch in queue order, leaving out the writes whose key a batch still
   * being committed holds (and every later write with that key): two overlapping
   * batches could take a row lock in either order, and the later write must not be
   * decided first.
   */
  private takeBatch(): Pending[] {
    if (this.inFlight.length === 0) return this.queue.splice(0, MAX_BATCH);
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const busy = (key: string | null) => key !== null && this.inFlight.some((keys) => keys.has(key));
    for (const p of this.queue) {
      if (batch.length === MAX_BATCH || busy(this.writer.lockKey(p.write))) rest.push(p);
      else batch.push(p);
    }
    this.queue = rest;
    return batch;
  }

  /** Marks the batch's keys as held until its transaction has ended. */
  private hold(batch: Pending[]): Set<string> {
    const keys = new Set<string>();
    for (const p of batch) {
      const key = this.writer.lockKey(p.write);
      if (key !== null) keys.add(key);
    }
    this.inFlight.push(keys);
    return keys;
  }

  private async commitHere(writes: { kind: string }[]): Promise<unknown[]> {
    if (this.writer.writeUnlocked) {
      const results = await this.writer.writeUnlocked(this.db.kysely, writes);
      this.options.metrics.scanBatches.inc({ path: results ? 'as_seen' : 'locked' });
      if (results) return results;
    }
    return this.db.kysely.transaction().execute((trx) => this.writer.write(trx, writes));
  }

  private async commit(batch: Pending[], committed: () => void = () => undefined): Promise<void> {
    try {
      const writes = batch.map((p) => p.write);
      const started = performance.now();
      const results = this.thread ? this.writer.restore(writes, await this.thread.commit(writes, committed)) : await this.commitHere(writes);
      const { metrics } = this.options;
      metrics.scanCommitDuration.observe((performance.now() - started) / 1000);
      metrics.scanBatchSize.observe(batch.length);
      batch.forEach((p, i) => p.resolve(results[i]));
    } catch (error) {
      if (batch.length === 1 || error instanceof CommittedBatchError) return batch.forEach((p) => p.reject(error));
      // One bad write must not fail the others: each is tried again on its own,
      // one after the other so that writes with one key keep their order.
      for (const p of batch) await this.commit([p]);
    }
  }
}
