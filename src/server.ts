// `tapproof serve`: open the database, migrate, bootstrap, listen; on SIGTERM
// stop accepting, finish in-flight requests and background work, then exit.
import { buildApp } from './app.js';
import { bootstrapIfEmpty, bootstrapMessage } from './bootstrap.js';
import type { Config } from './config.js';
import { openContext } from './open-context.js';
import { verifyMasterKeys } from './master-keys/masters.js';
import { applyServerHeapPolicy } from './heap-policy.js';
import { listenStartError } from './startup-errors.js';
import { startBackgroundWork } from './worker.js';

export async function serve(config: Config): Promise<void> {
  applyServerHeapPolicy();
  const ctx = await openContext(config, { checkpoints: 'background' });
  // Lacking the current generation (a rotation this process was not restarted for) is said at once; it still serves.
  for (const warning of await verifyMasterKeys(ctx)) process.stderr.write(`tapproof: WARNING: ${warning}\n`);
  // The GeoIP database opens now: a bad TAPPROOF_GEOIP_DB stops the start, not the first scan.
  await ctx.countries.ready();
  // Said once at start, not only per refused request in the log (docs/operations.md, Master keys).
  if (config.database.kind === 'postgres' && !config.masterKey) {
    process.stderr.write(
      'tapproof: WARNING: production is unavailable: PostgreSQL needs TAPPROOF_MASTER_KEY (or TAPPROOF_MASTER_KEY_FILE) for production chip keys and webhook secrets; sandbox works. Production requests answer 503 until it is set.\n',
    );
  }
  const app = await buildApp(ctx);
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    throw listenStartError(error, config) ?? error;
  }
  // Only once listening: a first start that cannot listen must not create the key it could never show
  // (only its hash is stored), so the next start creates and prints it (README.md, the first start).
  const boot = await bootstrapIfEmpty(ctx);
  const background = config.embeddedWorker ? startBackgroundWork(ctx) : null;
  if (boot) {
    const local = `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${(app.server.address() as { port: number }).port}${config.apiPrefix}`;
    // Printed once to the terminal, deliberately not through the structured log.
    process.stdout.write(bootstrapMessage(boot, local) + '\n');
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // Once the listener is closed nothing may be left keeping the event loop
    // alive (the SQLite checkpointer thread is unref'd): without this handle the
    // process would end halfway through closing, before the database is closed.
    setInterval(() => undefined, 1000);
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await app.close();
    await background?.stop();
    await ctx.db.close();
    app.log.info('tapproof stopped');
    process.exit(0);
  };
  // Before the readiness line: a supervisor may signal as soon as it reads it.
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  app.log.info({ address, database: config.database.kind, worker: background !== null }, 'tapproof listening');
}
