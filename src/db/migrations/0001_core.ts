import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { nullsFirst, text } from './helpers.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('teams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'text', (c) => c.references('teams.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();

  await db.schema
    .createTable('tags')
    .addColumn('id', text(dialect), (c) => c.primaryKey()) // ordered by the API: byte order on both engines
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('protocol', text(dialect), (c) => c.notNull())
    .addColumn('url', text(dialect), (c) => c.notNull())
    .addColumn('comment', text(dialect))
    .addColumn('session_duration', 'integer', (c) => c.notNull())
    .addColumn('status', text(dialect), (c) => c.notNull())
    .addColumn('configured_at', 'bigint')
    .addColumn('inserted_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // url is unique per team and mode (docs/decisions.md §3); the same index serves ORDER BY url.
  await db.schema.createIndex('tags_team_url').unique().on('tags').columns(['team_id', 'mode', 'url']).execute();
  // Every order_by field of GET /tags has an index led by the team's world, ending in id (the tie-break).
  for (const column of ['id', 'protocol', 'inserted_at', 'updated_at', 'status']) {
    const columns = column === 'id' ? ['team_id', 'mode', 'id'] : ['team_id', 'mode', column, 'id'];
    await db.schema.createIndex(`tags_team_${column}`).on('tags').columns(columns).execute();
  }
  for (const column of ['configured_at', 'comment']) {
    await sql`create index ${sql.raw(`tags_team_${column}`)} on tags (team_id, mode, ${nullsFirst(dialect, column)}, id)`.execute(db);
  }

  await db.schema
    .createTable('tag_counts')
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('tag_count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('tag_counts_pk', ['team_id', 'mode'])
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}
