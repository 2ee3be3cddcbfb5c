#!/usr/bin/env node
// The `tapproof` command. Operator commands use the same DATABASE_URL as the
// server and may run while it runs.
import { Command, InvalidArgumentError } from 'commander';
import { CliError, awaitedNow, commandGroup, commandLog, output, parseMode, parseProcesses, table, waitingFor } from './cli-kit.js';
import { registerEmulatorCommands } from './emulator/cli.js';
import { registerCatalogCommands } from './extension/catalog/cli.js';
import { registerHoldingsCommands } from './extension/holdings/cli.js';
import { registerTagChipCommands } from './tag-chips/cli.js';
import { registerWebhookCommands } from './webhooks/cli.js';
import { registerKeyCommands } from './keys/cli.js';
import { registerWriterCommands } from './writer/cli.js';
import { registerMasterCommands } from './master-keys/cli.js';
import { registerAuditCommands } from './audit/cli.js';
import { registerUserCommands } from './users/cli.js';
import { registerMailCommands } from './mail/cli.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { Mode } from './db/schema.js';
import { openContext } from './open-context.js';
import { addTeam } from './teams/service.js';
import { cliActor } from './audit/record.js';
import type { AppContext } from './context.js';
import { productionKeyPath, verifyMasterKeys } from './master-keys/masters.js';
import { BackupError, backupSqlite, restoreSqlite } from './db/backup.js';
import { pruneScans } from './verifications/retention.js';
import { KeyMaterialError } from './secrets/index.js';
import { DomainError } from './errors.js';
import { checkTagCounters, driftLine } from './tags/doctor.js';
import * as teamsRepo from './teams/repository.js';
import { listTags } from './tags/service.js';
import { renderTag } from './tags/serializer.js';
import { isoMicros } from './time.js';

function config(): Config {
  return loadConfig();
}

/**
 * Runs `work` with an open, migrated database and closes it afterwards. Commands
 * that touch chips or sealed secrets (the default) first check this process's
 * master keys against the database's (one line and exit 1 on a mismatch).
 */
export async function withContext<T>(work: (ctx: AppContext) => Promise<T>, options: { touchesKeys?: boolean } = {}): Promise<T> {
  const cfg = config();
  const ctx = await openContext(cfg, { existing: true, catchNestedUse: true, log: commandLog(cfg.logLevel) });
  try {
    waitingFor("this process's master keys to be checked against the database");
    if (options.touchesKeys !== false) await verifyMasterKeys(ctx);
    waitingFor("the command's work on the database");
    return await work(ctx);
  } finally {
    waitingFor('the database to close');
    await ctx.db.close();
    waitingFor('the command');
  }
}

/** Said by serve at start, and by doctor as a failure: a rehearsal setting left on a real deployment would accept forged chips. */
const REHEARSAL =
  'TAPPROOF_REHEARSAL is on: production accepts emulated chips, whose keys anyone can make; this must be a rehearsal deployment, never one whose chips are sold (docs/operations.md#rehearsing-a-rotation)';

export const program = new Command('tapproof').description('Self-hostable NFC tag authentication platform').showHelpAfterError();

program
  .command('serve')
  .description('run the HTTP API (and, unless TAPPROOF_EMBEDDED_WORKER=0, the background worker)')
  .option('--processes <n>', 'HTTP processes sharing the port (node:cluster), e.g. one per core', parseProcesses, 1)
  .action(async (opts: { processes: number }) => {
    // The HTTP server and its dependencies load only for the commands that run them, so that the
    // other commands start in a fraction of the time.
    waitingFor('the server to start');
    const cfg = config();
    if (cfg.rehearsal) process.stderr.write(`tapproof: WARNING: ${REHEARSAL}\n`);
    if (opts.processes > 1) return (await import('./cluster.js')).serveProcesses(cfg, opts.processes);
    return (await import('./server.js')).serve(cfg);
  });

program
  .command('worker')
  .description('run only the background worker (webhook delivery)')
  .action(async () => {
    const cfg = config();
    const [{ default: pino }, { backgroundJobs, startBackgroundWork }, { startMetricsServer }] = await Promise.all([
      import('pino'),
      import('./worker.js'),
      import('./metrics.js'),
    ]);
    // Structured lines like serve's: starting, ready, stopped (a supervisor's log shows each state).
    // Written synchronously: these few lines must reach stdout in order before the process exits
    // (with pino's asynchronous default, its exit-time flush could write 'stopped' ahead of a
    // 'stopping' still in flight).
    const log = pino({ level: cfg.logLevel, base: { process: 'worker' } }, pino.destination({ dest: 1, sync: true }));
    log.info({ database: cfg.database.kind }, 'tapproof worker starting');
    const ctx = await openContext(cfg);
    for (const warning of await verifyMasterKeys(ctx)) process.stderr.write(`tapproof: WARNING: ${warning}\n`);
    const background = startBackgroundWork(ctx);
    const metricsServer = cfg.workerMetricsPort === null ? null : await startMetricsServer(ctx.metrics, cfg.metricsToken, cfg.host, cfg.workerMetricsPort);
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      // Keeps the process alive until everything is closed (see serve's stop).
      setInterval(() => undefined, 1000);
      log.info({ signal }, 'tapproof worker stopping: finishing in-flight work');
      await metricsServer?.close();
      await background.stop();
      await ctx.db.close();
      log.info('tapproof worker stopped');
      process.exit(0);
    };
    // Before the readiness line: a supervisor may signal as soon as it reads it.
    process.on('SIGTERM', () => void stop('SIGTERM'));
    process.on('SIGINT', () => void stop('SIGINT'));
    log.info(
      { jobs: backgroundJobs.map((job) => job.name), ...(metricsServer ? { metrics: metricsServer.address + '/metrics' } : {}) },
      'tapproof worker ready',
    );
  });

program
  .command('migrate')
  .description('apply pending database migrations (serve also does this on start)')
  .option('--json', 'machine-readable output')
  .action(async (opts) => {
    const cfg = config();
    let applied: string[] = [];
    const ctx = await openContext(cfg, {}, (names) => (applied = names));
    await ctx.db.close();
    const human =
      applied.length === 0
        ? 'no migrations pending; the database is up to date'
        : `applied ${applied.length} migration${applied.length === 1 ? '' : 's'}: ${applied.join(', ')}`;
    output(opts.json, { ok: true, applied }, human);
  });

program
  .command('doctor')
  .description(
    'check the master keys against the database and every team and mode tag counter against its rows; exit code 1 on drift (unless --fix repaired it)',
  )
  .option('--fix', 'set each drifted counter to its row count (one transaction)')
  .option('--json', 'machine-readable output')
  .action(async (opts: { fix?: boolean; json?: boolean }) => {
    // With the key check every chip-touching command makes: a restored database is checked with the keys it needs.
    const report = await withContext((ctx) => checkTagCounters(ctx.db, { fix: opts.fix === true }));
    const drift = report.drift.map((w) => ({ team_id: w.teamId, mode: w.mode, counter: w.counter, rows: w.rows }));
    // A clean database says so; a cron job tells drift by the exit code (or --json).
    output(
      opts.json === true,
      { ok: drift.length === 0 || report.fixed, drift, fixed: report.fixed },
      drift.length === 0 ? 'no drift' : report.drift.map((w) => driftLine(w, report.fixed)).join('\n'),
    );
    if (drift.length > 0 && !report.fixed) process.exitCode = 1;
    if (config().rehearsal) {
      process.stderr.write(`tapproof: ${REHEARSAL}\n`);
      process.exitCode = 1;
    }
  });

program
  .command('backup')
  .description('a consistent copy of the SQLite database, taken while servers run, checked before it counts')
  .requiredOption('--to <path>', 'the new backup file')
  .option('--json', 'machine-readable output')
  .action(async (opts: { to: string; json?: boolean }) => {
    const cfg = config();
    if (cfg.database.kind !== 'sqlite' || cfg.database.path === ':memory:')
      throw new CliError(
        'tapproof backup copies the embedded SQLite database; on PostgreSQL use pg_dump or pg_basebackup (docs/operations.md#backup-and-restore)',
      );
    const report = await backupSqlite(cfg.database.path, opts.to, productionKeyPath({ config: cfg }));
    const keys = [
      report.keyFile ? `the production master keys were copied to ${report.keyFile} (mode 0600): keep it with the backup, apart from it in transit` : null,
      cfg.masterKey
        ? `production master keys come from ${cfg.masterKeySource ?? 'the environment'}: keep TAPPROOF_MASTER_KEY (and TAPPROOF_PREVIOUS_MASTER_KEYS) with the backup; they are not in it`
        : null,
      'the sandbox master keys are in the database',
    ].filter((line) => line !== null);
    output(
      opts.json === true,
      { ok: true, path: report.path, bytes: report.bytes, integrity: 'ok', key_file: report.keyFile, keys },
      [`backed up to ${report.path} (${report.bytes} bytes, integrity ok)`, ...keys].join('\n'),
    );
  });

program
  .command('restore')
  .description('put a backup in place as the SQLite database, in an empty data directory (then run tapproof doctor)')
  .requiredOption('--from <path>', 'the backup file')
  .option('--force', 'replace what the data directory holds')
  .option('--json', 'machine-readable output')
  .action(async (opts: { from: string; force?: boolean; json?: boolean }) => {
    const cfg = config();
    if (cfg.database.kind !== 'sqlite' || cfg.database.path === ':memory:')
      throw new CliError(
        'tapproof restore restores the embedded SQLite database; on PostgreSQL use pg_restore or your base backup (docs/operations.md#backup-and-restore)',
      );
    const { keyFile } = restoreSqlite(opts.from, cfg.database.path, productionKeyPath({ config: cfg }), opts.force === true);
    output(
      opts.json === true,
      { ok: true, path: cfg.database.path, key_file: keyFile },
      `restored ${opts.from} to ${cfg.database.path}${keyFile ? ` and its production master keys to ${keyFile}` : ''}; check it with: tapproof doctor`,
    );
  });

program
  .command('prune')
  .description('delete scans past the retention window now, as the background job does (never a claimed one, never replay state; stats keep their counts)')
  .option('--days <n>', 'the window in days (default: TAPPROOF_SCAN_RETENTION_DAYS)', (v: string) => {
    if (!/^\d{1,5}$/.test(v) || Number(v) < 1 || Number(v) > 36_500) throw new InvalidArgumentError('must be a whole number of days from 1 to 36500');
    return Number(v);
  })
  .option('--dry-run', 'say what would go; delete nothing')
  // Back to back, the batches hold SQLite's one writer most of the time and scans wait behind them.
  .option(
    '--pause <ms>',
    'milliseconds between batches, for the scans arriving meanwhile (0 to 10000)',
    (v: string) => {
      if (!/^\d{1,5}$/.test(v) || Number(v) > 10_000) throw new InvalidArgumentError('must be a whole number of milliseconds from 0 to 10000');
      return Number(v);
    },
    0,
  )
  .option('--json', 'machine-readable output')
  .action(async (opts: { days?: number; dryRun?: boolean; pause: number; json?: boolean }) => {
    const days = opts.days ?? config().scanRetentionDays;
    if (days === null) throw new CliError('nothing to prune by: pass --days N or set TAPPROOF_SCAN_RETENTION_DAYS');
    const report = await withContext((ctx) => pruneScans(ctx, { days, dryRun: opts.dryRun === true, pause: opts.pause, actor: cliActor() }), {
      touchesKeys: false,
    });
    const cutoff = isoMicros(report.cutoff);
    output(
      opts.json === true,
      { verifications: report.verifications, sessions: report.sessions, cutoff, dry_run: report.dryRun },
      `${report.dryRun ? 'would prune' : 'pruned'} ${report.verifications} scans and ${report.sessions} sessions older than ${cutoff}`,
    );
  });

const teams = program.command('teams').description('manage teams');
teams
  .command('create')
  .requiredOption('--name <name>', 'team name')
  .option('--parent <team_id>', 'parent team (makes this a subteam)')
  .option('--json', 'machine-readable output')
  .action(async (opts) => {
    const team = await withContext((ctx) => addTeam(ctx.db, opts.name, opts.parent ?? null, ctx.clock, cliActor()), { touchesKeys: false });
    output(opts.json, team, `created team ${team.id}`);
  });
teams
  .command('list')
  .description('every team, oldest first')
  .option('--json', 'machine-readable output')
  .action(async (opts) => {
    const rows = (await withContext((ctx) => teamsRepo.listTeams(ctx.db.kysely), { touchesKeys: false })).map((t) => ({
      id: t.id,
      name: t.name,
      parent_id: t.parent_id,
      created_at: isoMicros(t.created_at),
    }));
    output(
      opts.json,
      rows,
      rows.length === 0 ? 'no teams' : table([['id', 'name', 'parent_id', 'created_at'], ...rows.map((t) => [t.id, t.name, t.parent_id ?? '-', t.created_at])]),
    );
  });

const tags = commandGroup(program, 'tags', 'manage tags');
tags
  .command('list')
  .description("a team's tags of one mode, most recently updated first")
  .requiredOption('--team <team_id>', 'the team')
  .requiredOption('--mode <mode>', 'sandbox or production', parseMode)
  .option('--status <status>', 'only created or configured tags', (v: string) => {
    if (v !== 'created' && v !== 'configured') throw new InvalidArgumentError('must be created or configured');
    return v;
  })
  .option(
    '--limit <n>',
    'at most this many (1 to 10000)',
    (v: string) => {
      if (!/^\d{1,5}$/.test(v) || Number(v) < 1 || Number(v) > 10_000) throw new InvalidArgumentError('must be a whole number from 1 to 10000');
      return Number(v);
    },
    100,
  )
  .option('--json', 'machine-readable output')
  .action(async (opts) => {
    const world = { teamId: opts.team, mode: opts.mode as Mode };
    const { rows, total } = await withContext(
      async (ctx) => {
        if (!(await teamsRepo.findTeam(ctx.db.kysely, opts.team))) throw new CliError(`no team ${opts.team}`);
        return listTags(ctx, world, {
          q: null,
          status: opts.status ?? null,
          order: [{ field: 'updated_at', direction: 'desc' }],
          limit: opts.limit,
          offset: 0,
        });
      },
      { touchesKeys: false },
    );
    const shown = rows.map((t) => ({ id: t.id, ...renderTag(t).attributes }));
    const more = total > rows.length ? `\n(${rows.length} of ${total}; --limit shows more)` : '';
    const human =
      shown.length === 0
        ? 'no tags'
        : table([['id', 'status', 'protocol', 'updated_at', 'url'], ...shown.map((t) => [t.id, t.status, t.protocol, t.updated_at, t.url])]) + more;
    output(opts.json, shown, human);
  });

// Feature commands, after the core ones (`tags import` joins the `tags` above).
registerTagChipCommands(program, withContext);
registerEmulatorCommands(program, withContext);
registerKeyCommands(program, withContext);
registerWebhookCommands(program, withContext);
registerCatalogCommands(program, withContext);
registerHoldingsCommands(program, withContext);
registerWriterCommands(program);
registerMasterCommands(program, withContext);
registerAuditCommands(program, withContext);
registerUserCommands(program, withContext);
registerMailCommands(program, withContext);

export async function main(argv: string[]): Promise<void> {
  // A command whose work can never settle (a promise nothing will resolve, such as a read through the SQLite
  // database that waits for the connection its own transaction holds) would end with Node's exit code 13 and no
  // word: it ends with a line saying what it waited for instead.
  let settled = false;
  process.once('beforeExit', () => {
    if (settled) return;
    process.stderr.write(`tapproof: the command could not finish: it was waiting for ${awaitedNow()}, and nothing was left to answer it\n`);
    process.exit(1);
  });
  try {
    await program.parseAsync(argv);
    settled = true;
  } catch (error) {
    settled = true;
    // A domain error's message is its plain line (src/errors.ts); anything else unexpected keeps its stack.
    const known =
      error instanceof ConfigError ||
      error instanceof CliError ||
      error instanceof BackupError ||
      error instanceof KeyMaterialError ||
      error instanceof DomainError;
    process.stderr.write(`tapproof: ${known ? (error as Error).message : String((error as Error).stack ?? error)}\n`);
    process.exit(1);
  }
}
