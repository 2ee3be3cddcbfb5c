// The main thread's side of a SQLite commit thread (src/db/commit-thread-main.ts):
// batches go out as messages and each comes back twice, once its transaction has
// ended (`committed`) and once the WAL fsync after it is done (its results). The
// thread is started on the first batch and again after a crash.
import { Worker } from 'node:worker_threads';
import type { OpenOptions } from './database.js';

// A build runs dist (.js). From the sources (tsx: development, tests, benches)
// a thread does not inherit tsx's loader, so it registers it before importing.
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const THREAD_URL = new URL(FROM_SOURCES ? './commit-thread-main.ts' : './commit-thread-main.js', import.meta.url);
// A batch's objects die within milliseconds of its commit: a young generation of 4 MiB semi-spaces
// (V8 sizes it at three semi-spaces) holds them; the default 16 MiB ones only add resident memory.
const resourceLimits = { maxYoungGenerationSizeMb: 12 };
const newThread = (workerData: unknown) =>
  FROM_SOURCES
    ? new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(THREAD_URL.href)}); });`,
        {
          eval: true,
          workerData,
          resourceLimits,
        },
      )
    : new Worker(THREAD_URL, { workerData, resourceLimits });

/**
 * The thread's write connection. A statement that changes rows inside a transaction keeps a statement journal (so
 * that a constraint error undoes that statement alone), and a batch's inserts spilled it into a temp file every few
 * commits; a batch bounds it, so it stays in memory. A batch changes a few dozen pages, and the file's pages are in
 * the operating system's cache anyway: 8 MiB of page cache, since a larger one fills up as the database grows and
 * only adds resident memory (docs/throughput.md#memory).
 */
export const COMMIT_CONNECTION: OpenOptions = { walFlush: 'caller', checkpoints: 'elsewhere', tempStore: 'memory', cacheMiB: 8 };

/** What the thread is told at start: the database file and the module that builds its batch writer. */
export interface CommitThreadData {
  path: string;
  /** A module exporting `createWriteKinds(dialect)` (src/db/group-commit.ts). */
  writers: string;
}

interface ThreadAnswer {
  id: number;
  /** The batch's transaction has ended; its results follow once the WAL is on disk. */
  committed?: true;
  results?: unknown[];
  /** With `results`: seconds from the commit to the end of the fsync that made it durable. */
  fsyncWait?: number;
  /** `committed`: the transaction ended, the fsync after it failed (not to be tried again). */
  error?: { message: string; code?: string; committed?: true };
}

interface ThreadWaiter {
  committed(): void;
  resolve(results: unknown[]): void;
  reject(error: unknown): void;
}

/** A batch whose transaction ended but whose durability is unknown: trying it again would decide its writes twice. */
export class CommittedBatchError extends Error {}

export class CommitThread {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly waiting = new Map<number, ThreadWaiter>();

  constructor(
    private readonly data: CommitThreadData,
    private readonly observeFsyncWait: (seconds: number) => void,
  ) {}

  private start(): Worker {
    const worker = newThread(this.data);
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
        waiter?.resolve(answer.results!);
      }
    });
    const fail = (error: unknown) => {
      if (this.worker !== worker) return;
      this.worker = null;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the database commit thread exited with code ${code}`)));
    return worker;
  }

  /** Resolves once the batch is durable; `committed` is called as soon as its transaction has ended. */
  commit(writes: unknown[], committed: () => void): Promise<unknown[]> {
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
