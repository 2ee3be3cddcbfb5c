// The audit log's front door: what other features use to record their changes (docs/audit.md).
// Other features import this feature only through this file (test/house/layers.unit.test.ts).
export { type AuditOperation } from './operations.js';
export { changedFields, cliActor, recordAudit, systemActor, type AuditEntry } from './record.js';
