import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Remote personalization (docs/decisions.md §4, docs/writer.md): one row per write of a tag onto a chip.
// The server keeps the step and the EV2 session between round trips; the writer only relays APDUs.
// `result` is null while the write runs; the partial unique index allows one running write per tag.
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('writer_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('step', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('round_trips', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('result', 'text')
    .addColumn('reason', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('writer_sessions_running_tag').on('writer_sessions').column('tag_id').unique().where(sql.ref('result'), 'is', null).execute();
}
