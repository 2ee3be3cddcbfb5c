import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const serial = (name: string) => (t: any) =>
    t.addColumn(name, dialect === 'postgres' ? 'bigserial' : 'integer', (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()));

  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_secret_until', 'bigint')
    .addColumn('failing_since', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_world').on('webhooks').columns(['team_id', 'mode']).execute();

  await serial('id')(db.schema.createTable('deliveries'))
    .addColumn('event_id', 'text', (c: any) => c.notNull())
    .addColumn('webhook_id', 'text', (c: any) => c.notNull())
    .addColumn('status', 'text', (c: any) => c.notNull())
    .addColumn('attempts', 'integer', (c: any) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c: any) => c.notNull())
    .addColumn('created_at', 'bigint', (c: any) => c.notNull())
    .execute();
  // The worker's claim reads only due pending rows; delivered history stays out of that index.
  await sql`create index deliveries_due on deliveries (next_attempt_at) where status = 'pending'`.execute(db);
  await db.schema.createIndex('deliveries_event').on('deliveries').columns(['event_id']).execute();
  await db.schema.createIndex('deliveries_webhook').on('deliveries').columns(['webhook_id', 'created_at']).execute();

  await serial('id')(db.schema.createTable('delivery_attempts'))
    .addColumn('delivery_id', 'bigint', (c: any) => c.notNull())
    .addColumn('webhook_id', 'text', (c: any) => c.notNull())
    .addColumn('event_id', 'text', (c: any) => c.notNull())
    .addColumn('attempt', 'integer', (c: any) => c.notNull())
    .addColumn('started_at', 'bigint', (c: any) => c.notNull())
    .addColumn('duration_ms', 'integer', (c: any) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('delivery_attempts_webhook').on('delivery_attempts').columns(['webhook_id', 'id']).execute();
}
