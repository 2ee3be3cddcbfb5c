// A SQLite commit thread (src/db/commit-thread.ts): its own write connection to
// the database file decides and commits the batches the main thread sends, so
// that statement work and the disk flush never stop the event loop that parses
// requests and checks chip cryptography. One batch at a time, in the order sent.
// Each batch is reported twice: `committed` as soon as its transaction has ended
// (the main thread may send the next one), then its results once an fsync of the
// WAL that began after the commit has completed (src/db/wal-flush.ts): nobody
// learns of a write before it is durable, and the next batch's statements overlap
// this one's fsync (docs/throughput.md).
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './database.js';
import type { CreateWriteKinds } from './group-commit.js';
import { WalFlush } from './wal-flush.js';
import { COMMIT_CONNECTION, type CommitThreadData } from './commit-thread.js';

const port = parentPort!;
const { path, writers } = workerData as CommitThreadData;
// Listening starts before the module arrives, so that no batch sent meanwhile can be missed.
const writer = import(writers).then((m: { createWriteKinds: CreateWriteKinds }) => m.createWriteKinds('sqlite'));
// `serve` checkpoints from a thread of its own (src/db/database.ts); in any other process this
// connection's safety threshold does, rather than a checkpoint every 1,000 pages inside a batch.
const db = openDatabase({ kind: 'sqlite', path }, COMMIT_CONNECTION);
const wal = new WalFlush(`${path}-wal`);

const errorOf = (error: unknown) => {
  const e = error as { message?: unknown; code?: unknown } | null;
  return { message: String(e?.message ?? error), code: typeof e?.code === 'string' ? e.code : undefined };
};

const onMessage = async (message: { id: number; writes: { kind: string }[] } | 'stop') => {
  if (message === 'stop') {
    await wal.close();
    await db.close();
    port.close();
    return;
  }
  const { id } = message;
  let results;
  try {
    const batches = await writer;
    const written = await db.kysely.transaction().execute((trx) => batches.write(trx, message.writes));
    batches.committed(message.writes);
    results = batches.carry(message.writes, written);
  } catch (error) {
    port.postMessage({ id, error: errorOf(error) });
    return;
  }
  port.postMessage({ id, committed: true });
  const committedAt = performance.now();
  // A failed fsync leaves the commit in place but maybe not on disk: its writes are answered with the error, never retried.
  wal.after((error) =>
    port.postMessage(error ? { id, error: { ...errorOf(error), committed: true } } : { id, results, fsyncWait: (performance.now() - committedAt) / 1000 }),
  );
};
port.on('message', (message: Parameters<typeof onMessage>[0]) => void onMessage(message));
