// Reading the audit log as a caller may: the events of its world, and the team's own events (its people)
// only for a caller that reaches the whole team (docs/keys.md#what-each-mode-may-touch).
import type { Executor } from '../db/database.js';
import { reachesTeam } from '../http/access.js';
import type { Principal } from '../world.js';
import * as auditRepo from './repository.js';
import type { AuditFilter, AuditRow } from './repository.js';

export function listAuditEventsFor(db: Executor, principal: Principal, filter: AuditFilter): Promise<AuditRow[]> {
  return auditRepo.listAuditEvents(db, { teamId: principal.teamId, mode: principal.mode, teamWide: reachesTeam(principal) }, filter);
}
