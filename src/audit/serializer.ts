import { isoMicros } from '../time.js';
import type { AuditRow } from './repository.js';

// Times inside `changes` stay as stored (microseconds): they are the values the change set.
export function renderAuditEvent(row: AuditRow) {
  return {
    type: 'audit-events' as const,
    id: row.id,
    attributes: {
      occurred_at: isoMicros(row.occurred_at),
      actor: { type: row.actor_type, id: row.actor_id },
      address: row.address,
      request_id: row.request_id,
      operation: row.operation,
      resource: { type: row.resource_type, id: row.resource_id },
      changes: row.changes === null ? null : (JSON.parse(row.changes) as Record<string, unknown>),
    },
  };
}
