// `tapproof serve`: open the database, migrate, bootstrap, listen; on SIGTERM
// stop accepting, finish in-flight requests and background work, then exit.
import { buildApp } from './app.js';
import { bootstrapIfEmpty, bootstrapMessage } from './bootstrap.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openDatabase, type OpenOptions } from './db/database.js';
import { migrate } from './db/migrations.js';
import { startBackgroundWork } from './worker.js';

export async function openContext(config: Config, options: OpenOptions = {}): Promise<AppContext> {
  const db = openDatabase(config.database, options);
  await migrate(db);
  return { db, config };
}

export async function serve(config: Config): Promise<void> {
  const ctx = await openContext(config, { backgroundCheckpoints: true });
  const boot = await bootstrapIfEmpty(ctx.db);
  const app = await buildApp(ctx);
  const background = config.embeddedWorker ? startBackgroundWork(ctx) : null;
  const address = await app.listen({ port: config.port, host: config.host });
  if (boot) {
    const local = `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${(app.server.address() as { port: number }).port}${config.apiPrefix}`;
    // Printed once to the terminal, deliberately not through the structured log.
    process.stdout.write(bootstrapMessage(boot, local) + '\n');
  }
  app.log.info({ address, database: config.database.kind, worker: background !== null }, 'tapproof listening');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await app.close();
    await background?.stop();
    await ctx.db.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
