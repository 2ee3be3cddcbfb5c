// `tapproof audit list`: the audit log on the host, every world's and the deployment's own (master key
// generations), with the API's filters. Reading it is not a change: it records nothing.
import { InvalidArgumentError, type Command } from 'commander';
import { output, parseMode, table, type WithContext } from '../cli-kit.js';
import { parseIsoMicros } from '../http/query.js';
import type { Kernel } from '../kernel.js';
import { AUDIT_OPERATIONS, type AuditOperation } from './operations.js';
import { listAuditEvents } from './repository.js';
import { renderAuditEvent } from './serializer.js';

const LIMIT_MAX = 10_000;

function parseTime(value: string): number {
  const at = parseIsoMicros(value);
  if (at === null) throw new InvalidArgumentError('must be an ISO 8601 date (2026-01-31) or time with offset (2026-01-31T12:00:00Z)');
  return at;
}

function parseOperation(value: string): AuditOperation {
  if (!(AUDIT_OPERATIONS as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${AUDIT_OPERATIONS.join(', ')}`);
  return value as AuditOperation;
}

function parseLimit(value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) < 1 || Number(value) > LIMIT_MAX)
    throw new InvalidArgumentError(`must be a whole number from 1 to ${LIMIT_MAX}`);
  return Number(value);
}

export function registerAuditCommands(program: Command, withContext: WithContext<Kernel>): void {
  const audit = program.command('audit').description('who changed what: the audit log');
  audit
    .command('list')
    .description('audit events, newest first')
    .option('--team <team_id>', "one team's events (default: every team's and the deployment's own)")
    .option('--mode <mode>', 'one mode: sandbox or production', parseMode)
    .option('--deployment', "only the deployment's own events (master key generations)")
    .option('--actor <id>', 'only changes by this key, user or CLI user@host')
    .option('--resource <id>', 'only changes to this resource')
    .option('--operation <operation>', 'only this operation (tag.create, key.revoke, …)', parseOperation)
    .option('--since <iso>', 'at or after this time', parseTime)
    .option('--until <iso>', 'before this time', parseTime)
    .option('--limit <n>', `at most this many (1 to ${LIMIT_MAX})`, parseLimit, 50)
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const where = { teamId: opts.deployment ? null : opts.team, mode: opts.mode };
      const rows = await withContext(
        (ctx) =>
          listAuditEvents(ctx.db.kysely, where, {
            actor: opts.actor,
            resource: opts.resource,
            operation: opts.operation,
            since: opts.since,
            until: opts.until,
            limit: opts.limit,
          }),
        { touchesKeys: false },
      );
      const events = rows.map((row) => ({ ...renderAuditEvent(row).attributes, id: row.id, team_id: row.team_id, mode: row.mode }));
      output(
        opts.json,
        events,
        events.length === 0
          ? 'no audit events'
          : table([
              ['occurred_at', 'team', 'mode', 'actor', 'operation', 'resource', 'changes'],
              ...events.map((e) => [
                e.occurred_at,
                e.team_id ?? '-',
                e.mode ?? '-',
                `${e.actor.type}:${e.actor.id}`,
                e.operation,
                e.resource.id ?? '-',
                e.changes === null ? '-' : JSON.stringify(e.changes),
              ]),
            ]),
      );
    });
}
