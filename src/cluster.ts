// `tapproof serve --processes N`: N HTTP processes sharing one port
// (node:cluster; the primary accepts connections and hands them round-robin to
// the workers), so that HTTP parsing and chip cryptography use every core. The
// processes share nothing but the database, which is enough: a scan's counter
// is checked and advanced under the chip row's lock (PostgreSQL FOR UPDATE,
// SQLite's write lock), key revokes reach every process (NOTIFY / the watched
// revocations file), and configured tags never change url. The primary
// migrates and bootstraps once before forking, and serves no request itself.
import cluster, { type Worker } from 'node:cluster';
import pino from 'pino';
import { bootstrapIfEmpty, bootstrapMessage } from './bootstrap.js';
import { verifyMasterKeys } from './master-keys/masters.js';
import type { Config } from './config.js';
import { openContext } from './open-context.js';
import { serve } from './server.js';

/** A worker that dies after it was serving is replaced after this long. */
const RESTART_MS = 1_000;

export async function serveProcesses(config: Config, processes: number): Promise<void> {
  if (!cluster.isPrimary) return serve(config);
  // Synchronous, like the worker's: its last line ('stopped') is written just before process.exit.
  const log = pino({ level: config.logLevel }, pino.destination({ dest: 1, sync: true }));

  const ctx = await openContext(config);
  try {
    await verifyMasterKeys(ctx);
    const boot = await bootstrapIfEmpty(ctx);
    if (boot) {
      const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
      // Printed once to the terminal, deliberately not through the structured log.
      process.stdout.write(bootstrapMessage(boot, `http://${host}:${config.port}${config.apiPrefix}`) + '\n');
    }
  } finally {
    await ctx.db.close();
  }

  let stopping = false;
  const listening = new Set<Worker>();
  const fork = (index: number): void => {
    // One process runs the background worker (webhook delivery); several would only compete for claims.
    const worker = cluster.fork(index === 0 ? {} : { TAPPROOF_EMBEDDED_WORKER: '0' });
    worker.once('listening', () => listening.add(worker));
    worker.once('exit', (code, signal) => {
      const wasServing = listening.delete(worker);
      if (stopping) return;
      if (!wasServing) {
        // It could not start (port taken, database gone): the others cannot either.
        log.fatal({ code, signal }, 'a server process failed to start; stopping');
        void stop(1);
        return;
      }
      log.error({ code, signal, pid: worker.process.pid }, 'a server process died; starting another');
      setTimeout(() => !stopping && fork(index), RESTART_MS);
    });
  };

  const stop = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve();
            w.once('exit', () => resolve());
            // Each finishes its in-flight requests, then exits (src/server.ts).
            w.process.kill('SIGTERM');
          }),
      ),
    );
    log.info('tapproof stopped');
    process.exit(exitCode);
  };
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGINT', () => void stop(0));

  for (let i = 0; i < processes; i++) fork(i);
  log.info({ processes, port: config.port }, 'tapproof starting server processes');
}
