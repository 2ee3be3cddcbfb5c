// The audit log of the key's world, for its admins.
import listAuditEvents from './list-audit-events.js';

export const auditRoutes = [listAuditEvents] as const;
