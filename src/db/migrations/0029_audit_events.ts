import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { text } from './helpers.js';

// The audit log (docs/audit.md): one row per resource a change touched, written in the change's own
// transaction. A team's list is read newest first within its world, by time and id; a resource's or
// an actor's history is an index range of its own. Team and mode are null for changes that belong to
// the deployment (master key generations, retention), which only `tapproof audit list` shows.
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('audit_events')
    .addColumn('id', text(dialect), (c) => c.primaryKey())
    .addColumn('team_id', text(dialect))
    .addColumn('mode', text(dialect))
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('actor_type', text(dialect), (c) => c.notNull())
    .addColumn('actor_id', text(dialect), (c) => c.notNull())
    .addColumn('address', text(dialect))
    .addColumn('request_id', text(dialect))
    .addColumn('operation', text(dialect), (c) => c.notNull())
    .addColumn('resource_type', text(dialect), (c) => c.notNull())
    .addColumn('resource_id', text(dialect))
    .addColumn('changes', text(dialect))
    .execute();
  await db.schema.createIndex('audit_events_world').on('audit_events').columns(['team_id', 'mode', 'occurred_at', 'id']).execute();
  await db.schema.createIndex('audit_events_resource').on('audit_events').columns(['team_id', 'mode', 'resource_id', 'occurred_at', 'id']).execute();
  await db.schema.createIndex('audit_events_actor').on('audit_events').columns(['team_id', 'mode', 'actor_id', 'occurred_at', 'id']).execute();
}
