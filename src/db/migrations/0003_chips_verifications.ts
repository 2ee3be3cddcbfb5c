import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Chips bound to configured tags, the sandbox emulator's chip state, scan
// verifications and the sessions that pair two genuine scans (docs/decisions.md §4–§5).
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('chips')
    .addColumn('tag_id', 'text', (c) => c.primaryKey().references('tags.id'))
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('protocol', 'text', (c) => c.notNull())
    .addColumn('uid', 'text', (c) => c.notNull())
    .addColumn('crypto', 'text', (c) => c.notNull())
    .addColumn('mirroring', 'text', (c) => c.notNull())
    .addColumn('key_source', 'text', (c) => c.notNull())
    .addColumn('key_version', 'integer', (c) => c.notNull())
    .addColumn('sdm_meta_read_key_sealed', 'text')
    .addColumn('sdm_file_read_key_sealed', 'text')
    .addColumn('params', 'text', (c) => c.notNull())
    .addColumn('mac_input_from', 'text')
    .addColumn('write_generation', 'integer', (c) => c.notNull())
    .addColumn('last_counter', 'integer')
    .addColumn('session_id', 'text')
    .addColumn('session_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('emulated_chips')
    .addColumn('tag_id', 'text', (c) => c.primaryKey().references('tags.id'))
    .addColumn('counter', 'integer', (c) => c.notNull())
    .addColumn('tamper_permanent', 'text')
    .addColumn('tamper_current', 'text')
    .execute();

  await db.schema
    .createTable('verifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('genuine', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('read_counter', 'integer')
    .addColumn('tamper_permanent', 'text')
    .addColumn('tamper_current', 'text')
    .addColumn('session_id', 'text')
    .addColumn('scanned_at', 'bigint', (c) => c.notNull())
    .addColumn('url_hash', 'text', (c) => c.notNull())
    .addColumn('client_ip', 'text')
    .addColumn('country', 'text')
    .addColumn('write_generation', 'integer', (c) => c.notNull())
    .execute();
  // The page-reload lookup: the genuine verification of this exact URL on this tag.
  await db.schema.createIndex('verifications_tag_url').on('verifications').columns(['tag_id', 'url_hash']).execute();
  await db.schema.createIndex('verifications_session').on('verifications').columns(['session_id']).execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('opened_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}
