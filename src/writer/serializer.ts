// The JSON:API `writes` resource: a write's status, the APDUs the writer must send now, and why it failed.
import { isoMicros } from '../time.js';
import { pendingApdus, type WriteRow } from './service.js';

export function renderWrite(row: WriteRow) {
  const status = row.result ?? 'running';
  return {
    type: 'writes',
    id: row.id,
    attributes: {
      tag_id: row.tag_id,
      operation: row.operation,
      status,
      step: row.step,
      apdus: pendingApdus(row),
      reason: row.reason === null ? null : (JSON.parse(row.reason) as { code: string; detail: string }),
      round_trips: row.round_trips,
      expires_at: isoMicros(row.expires_at),
      started_at: isoMicros(row.created_at),
      updated_at: isoMicros(row.updated_at),
    },
  };
}
