// The SQLite scan writer's thread (src/verifications/scan-writer.ts): its own
// write connection to the database file decides and commits the batches the
// main thread sends (scans and extension writes), so that statement work and the commit's fsync
// (synchronous=FULL) never stop the event loop that parses requests and checks
// chip cryptography. One batch at a time; an answer is sent after the commit.
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/database.js';
import { writeMixedBatch, type Write } from './scan-writer.js';

const port = parentPort!;
const db = openDatabase({ kind: 'sqlite', path: (workerData as { path: string }).path });

port.on('message', async (message: { id: number; writes: Write[] } | 'stop') => {
  if (message === 'stop') {
    await db.close();
    port.close();
    return;
  }
  try {
    const rows = await db.kysely.transaction().execute((trx) => writeMixedBatch(trx, message.writes, false));
    port.postMessage({ id: message.id, rows });
  } catch (error) {
    const e = error as { message?: unknown; code?: unknown } | null;
    port.postMessage({ id: message.id, error: { message: String(e?.message ?? error), code: typeof e?.code === 'string' ? e.code : undefined } });
  }
});
