// Operator commands on API keys: list, create (with a role, a name, an expiry), roll and revoke. The
// API's admin keys do the same through /keys (docs/api.md#keys); these work with no key at all.
import { LATEST_SETTABLE, LATEST_SETTABLE_MICROS } from '../time.js';
import { InvalidArgumentError, type Command } from 'commander';
import { CliError, output, parseMode, table, type WithContext } from '../cli-kit.js';
import { DomainError } from '../errors.js';
import { ROLES, isRole } from '../http/access.js';
import { parseIsoMicros } from '../http/query.js';
import type { Kernel } from '../kernel.js';
import * as teamsRepo from '../teams/index.js';
import { isoMicros, isoOrNull } from '../time.js';
import type { KeysState } from './context.js';
import * as keysRepo from './repository.js';
import { ROLL_OVERLAP_MAX_SECONDS } from './rules.js';
import { issueKey, revoke, roll } from './service.js';
import { cliActor } from '../audit/index.js';

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `--expires`: an ISO 8601 time, or a duration from now (`90d`, `12h`, `30m`, `45s`), as microseconds since the epoch. */
function parseExpiry(value: string): (now: number) => number {
  const duration = /^(\d{1,6})([smhd])$/.exec(value);
  if (duration) return (now) => now + Number(duration[1]) * UNITS[duration[2]!]! * 1_000_000;
  const at = parseIsoMicros(value);
  if (at === null) throw new InvalidArgumentError('must be an ISO 8601 time (2027-01-31T12:00:00Z) or a duration (90d, 12h, 30m)');
  if (at >= LATEST_SETTABLE_MICROS) throw new InvalidArgumentError(`must be before ${LATEST_SETTABLE}`);
  return () => at;
}

function parseRole(value: string) {
  if (!isRole(value)) throw new InvalidArgumentError(`must be one of ${ROLES.join(', ')}`);
  return value;
}

function parseOverlap(value: string): number {
  if (!/^\d{1,7}$/.test(value) || Number(value) > ROLL_OVERLAP_MAX_SECONDS)
    throw new InvalidArgumentError(`must be a whole number of seconds from 0 to ${ROLL_OVERLAP_MAX_SECONDS} (7 days)`);
  return Number(value);
}

const COLUMNS = ['id', 'mode', 'role', 'name', 'created_at', 'expires_at', 'revoked_at', 'replaced_by', 'last_used_at'] as const;

export function registerKeyCommands(program: Command, withContext: WithContext<Pick<Kernel, 'db' | 'clock'> & KeysState>): void {
  const keys = program.command('keys').description('manage API keys');
  keys
    .command('list')
    .description("a team's keys, oldest first (never a secret)")
    .requiredOption('--team <team_id>', 'the team')
    .option('--mode <mode>', 'only keys of this mode: sandbox or production', parseMode)
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const found = await withContext(
        async (ctx) => {
          if (!(await teamsRepo.findTeam(ctx.db.kysely, opts.team))) throw new CliError(`no team ${opts.team}`);
          return keysRepo.listKeys(ctx.db.kysely, opts.team, opts.mode);
        },
        { touchesKeys: false },
      );
      const rows = found.map((k) => ({
        id: k.id,
        mode: k.mode,
        role: k.role,
        name: k.name,
        created_at: isoMicros(k.created_at),
        expires_at: isoOrNull(k.expires_at),
        revoked_at: isoOrNull(k.revoked_at),
        replaced_by: k.replaced_by,
        last_used_at: isoOrNull(k.last_used_at),
      }));
      output(opts.json, rows, rows.length === 0 ? 'no keys' : table([[...COLUMNS], ...rows.map((k) => COLUMNS.map((c) => k[c] ?? '-'))]));
    });
  keys
    .command('create')
    .description('a new key; its text is printed once')
    .requiredOption('--team <team_id>', 'team the key belongs to')
    .requiredOption('--mode <mode>', 'sandbox or production', parseMode)
    .option('--role <role>', `what the key may call: ${ROLES.join(', ')}`, parseRole, 'admin')
    .option('--name <name>', 'tells the key apart in lists')
    .option('--expires <when>', 'refused from then on: an ISO 8601 time or a duration from now (90d, 12h, 30m)', parseExpiry)
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const made = await withContext(
        async (ctx) => {
          const expiresAt = opts.expires ? opts.expires(ctx.clock.nowMicros()) : null;
          if (expiresAt !== null && expiresAt <= ctx.clock.nowMicros()) throw new CliError('--expires must be in the future');
          // A duration ends where the clock says; so bounded here, as a time is when parsed.
          if (expiresAt !== null && expiresAt >= LATEST_SETTABLE_MICROS) throw new CliError(`--expires must end before ${LATEST_SETTABLE}`);
          return issueKey(ctx.db, { teamId: opts.team, mode: opts.mode, actor: cliActor() }, ctx.clock, {
            role: opts.role,
            name: opts.name ?? null,
            expiresAt,
          });
        },
        { touchesKeys: false },
      );
      const { row } = made;
      const expiry = row.expires_at === null ? 'never expires' : `expires ${isoMicros(row.expires_at)}`;
      output(
        opts.json,
        { id: made.id, key: made.key, role: row.role, name: row.name, expires_at: isoOrNull(row.expires_at) },
        `created ${row.role} key ${made.id} (${expiry})\n${made.key}\n(the key is shown only now)`,
      );
    });
  keys
    .command('roll <key_id>')
    .description('a new key of the same role and name; the old one keeps working for --expires-in seconds')
    .option('--expires-in <seconds>', `overlap: 0 (default) to ${ROLL_OVERLAP_MAX_SECONDS} (7 days)`, parseOverlap, 0)
    .option('--json', 'machine-readable output')
    .action(async (keyId: string, opts) => {
      const made = await withContext(
        async (ctx) => {
          const old = await keysRepo.findKey(ctx.db.kysely, keyId);
          if (!old) throw new CliError(`no key ${keyId}`);
          try {
            return await roll(ctx, { teamId: old.team_id, mode: old.mode, actor: cliActor() }, keyId, opts.expiresIn);
          } catch (error) {
            if (error instanceof DomainError && error.detail) throw new CliError(`${keyId} cannot roll: ${error.detail}`);
            throw error;
          }
        },
        { touchesKeys: false },
      );
      const old = opts.expiresIn === 0 ? `${keyId} no longer works` : `${keyId} keeps working for ${opts.expiresIn} s`;
      output(
        opts.json,
        { id: made.id, key: made.key, replaces: keyId, role: made.row.role },
        `created ${made.row.role} key ${made.id}; ${old}\n${made.key}\n(the key is shown only now)`,
      );
    });
  keys
    .command('revoke <key_id>')
    .option('--json', 'machine-readable output')
    .action(async (keyId: string, opts) => {
      const found = await withContext((ctx) => revoke(ctx, keyId, cliActor()), { touchesKeys: false });
      if (!found) throw new CliError(`no key ${keyId}`);
      output(opts.json, { id: keyId, revoked: true }, `revoked key ${keyId}`);
    });
}
