// Writing the audit log: always in the transaction of the change it records, so that a change and
// its record commit or roll back together (a refused batch leaves neither). Who acted comes from the
// caller; what changed is the service's to say, and it never passes a secret.
import { hostname, userInfo } from 'node:os';
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import { newTimeOrderedId } from '../ids.js';
import type { Actor } from '../world.js';
import { resourceTypeOf, type AuditOperation } from './operations.js';
import * as auditRepo from './repository.js';

/** Where a change happened and who made it: a team's world, or the deployment itself (team and mode null). */
export interface AuditScope {
  teamId: string | null;
  mode: Mode | null;
  actor: Actor;
}

/** One resource a change touched. */
export interface AuditEntry {
  operation: AuditOperation;
  /** Null when the change has no single resource (a prune). */
  resourceId: string | null;
  /** The fields the change set, or a summary of it; never a secret. */
  changes?: Record<string, unknown> | null;
}

/** Records `entries` as made by `scope.actor` at `at` (microseconds, the service's clock). */
export async function recordAudit(trx: Executor, scope: AuditScope, at: number, entries: AuditEntry[]): Promise<void> {
  const { actor } = scope;
  const ms = Math.floor(at / 1000);
  // Sorted, so that the records of one change keep its entries' order in a list by (occurred_at, id).
  const ids = entries.map(() => newTimeOrderedId('aud', ms)).sort();
  const rows = entries.map((entry, i) => ({
    id: ids[i]!,
    team_id: scope.teamId,
    mode: scope.mode,
    occurred_at: at,
    actor_type: actor.type,
    actor_id: actor.id,
    address: actor.address,
    request_id: actor.requestId,
    operation: entry.operation,
    resource_type: resourceTypeOf(entry.operation),
    resource_id: entry.resourceId,
    changes: entry.changes == null ? null : JSON.stringify(entry.changes),
  }));
  await auditRepo.insertAuditEvents(trx, rows);
}

/** The CLI on this host, as the operating system names its user. */
export function cliActor(): Actor {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry for the uid (a container's arbitrary user).
    user = `uid ${process.getuid?.() ?? '?'}`;
  }
  return { type: 'cli', id: `${user}@${hostname()}`, address: null, requestId: null };
}

/** A job of the platform itself (retention). */
export const systemActor = (job: string): Actor => ({ type: 'system', id: job, address: null, requestId: null });

/** Fields `after` sets differently from `before`, each as { from, to }: what an update record says. */
export function changedFields<T extends object>(
  before: T,
  after: Partial<T>,
  fields: readonly (keyof T & string)[],
): Record<string, { from: unknown; to: unknown }> {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const field of fields) if (field in after && after[field] !== before[field]) out[field] = { from: before[field], to: after[field] };
  return out;
}
