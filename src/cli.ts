#!/usr/bin/env node
// The `tapproof` command. Operator commands use the same DATABASE_URL as the
// server and may run while it runs.
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { Mode } from './db/schema.js';
import { createKey, revoke } from './keys/service.js';
import { openContext, serve } from './server.js';
import { createTeam } from './teams/service.js';
import type { AppContext } from './context.js';
import { startBackgroundWork } from './worker.js';

/** A failure the operator caused: printed as one line, exit code 1. */
export class CliError extends Error {}

function config(): Config {
  return loadConfig();
}

/** Runs `work` with an open, migrated database and closes it afterwards. */
export async function withContext<T>(work: (ctx: AppContext) => Promise<T>): Promise<T> {
  const ctx = await openContext(config());
  try {
    return await work(ctx);
  } finally {
    await ctx.db.close();
  }
}

export function parseMode(value: string): Mode {
  if (value !== 'sandbox' && value !== 'production') throw new InvalidArgumentError('must be sandbox or production');
  return value;
}

/** Prints `value` as JSON with --json, else the human line. */
export function output(json: boolean, value: unknown, human: string): void {
  process.stdout.write((json ? JSON.stringify(value) : human) + '\n');
}

export const program = new Command('tapproof').description('Self-hostable NFC tag authentication platform').showHelpAfterError();

program
  .command('serve')
  .description('run the HTTP API (and, unless TAPPROOF_EMBEDDED_WORKER=0, the background worker)')
  .action(async () => serve(config()));

program
  .command('worker')
  .description('run only the background worker (webhook delivery)')
  .action(async () => {
    const ctx = await openContext(config());
    const background = startBackgroundWork(ctx);
    const stop = async () => {
      await background.stop();
      await ctx.db.close();
      process.exit(0);
    };
    process.on('SIGTERM', () => void stop());
    process.on('SIGINT', () => void stop());
  });

program
  .command('migrate')
  .description('apply pending database migrations (serve also does this on start)')
  .option('--json', 'machine-readable output')
  .action(async (opts) => {
    await withContext(async () => undefined);
    output(opts.json, { ok: true }, 'migrations applied');
  });

const teams = program.command('teams').description('manage teams');
teams
  .command('create')
  .requiredOption('--name <name>', 'team name')
  .option('--parent <team_id>', 'parent team (makes this a subteam)')
  .option('--json', 'machine-readable output')
  .action(async (opts) => {
    const team = await withContext((ctx) => createTeam(ctx.db.kysely, opts.name, opts.parent ?? null));
    output(opts.json, team, `created team ${team.id}`);
  });

const keys = program.command('keys').description('manage API keys');
keys
  .command('create')
  .requiredOption('--team <team_id>', 'team the key belongs to')
  .requiredOption('--mode <mode>', 'sandbox or production', parseMode)
  .option('--json', 'machine-readable output')
  .action(async (opts) => {
    const key = await withContext((ctx) => createKey(ctx.db.kysely, opts.team, opts.mode));
    output(opts.json, key, `created key ${key.id}\n${key.key}\n(the key is shown only now)`);
  });
keys
  .command('revoke <key_id>')
  .option('--json', 'machine-readable output')
  .action(async (keyId: string, opts) => {
    const found = await withContext((ctx) => revoke(ctx.db, keyId));
    if (!found) throw new CliError(`no key ${keyId}`);
    output(opts.json, { id: keyId, revoked: true }, `revoked key ${keyId}`);
  });

export async function main(argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (error) {
    const known = error instanceof ConfigError || error instanceof CliError || (error as Error).constructor?.name?.endsWith('ServiceError');
    process.stderr.write(`tapproof: ${known ? (error as Error).message : String((error as Error).stack ?? error)}\n`);
    process.exit(1);
  }
}
