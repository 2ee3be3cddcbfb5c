import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { text } from './helpers.js';

// Counterfeit cases (docs/cases.md): a tag's flagged scans grouped into one case a team triages to a
// resolution. Opened and joined under the tag's chip lock in the scan's commit; the unique index on a
// tag's unresolved case holds the rule "one open case per tag" even against a path that would skip the lock.
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('cases')
    .addColumn('id', text(dialect), (c) => c.primaryKey())
    .addColumn('team_id', text(dialect), (c) => c.notNull())
    .addColumn('mode', text(dialect), (c) => c.notNull())
    .addColumn('tag_id', text(dialect), (c) => c.notNull())
    .addColumn('state', text(dialect), (c) => c.notNull())
    .addColumn('opened_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('scans', 'integer', (c) => c.notNull())
    // Comma-separated in the signals' order, as a verification stores them: the signal filter is one LIKE.
    .addColumn('signals', text(dialect), (c) => c.notNull())
    .addColumn('signal_counts', text(dialect), (c) => c.notNull())
    .addColumn('countries', text(dialect), (c) => c.notNull())
    .addColumn('assignee_id', text(dialect))
    .addColumn('resolution', text(dialect))
    .addColumn('resolution_note', text(dialect))
    .addColumn('previous_case_id', text(dialect))
    .addColumn('acknowledged_at', 'bigint')
    .addColumn('resolved_at', 'bigint')
    .execute();
  await db.schema.createIndex('cases_world_opened').on('cases').columns(['team_id', 'mode', 'opened_at', 'id']).execute();
  await db.schema.createIndex('cases_world_state_opened').on('cases').columns(['team_id', 'mode', 'state', 'opened_at', 'id']).execute();
  await db.schema.createIndex('cases_tag').on('cases').columns(['tag_id', 'opened_at']).execute();
  await db.schema.createIndex('cases_one_unresolved').on('cases').column('tag_id').unique().where(sql.ref('state'), '<>', sql.lit('resolved')).execute();

  await db.schema
    .createTable('case_scans')
    .addColumn('case_id', text(dialect), (c) => c.notNull())
    .addColumn('scanned_at', 'bigint', (c) => c.notNull())
    .addColumn('verification_id', text(dialect), (c) => c.notNull())
    .addPrimaryKeyConstraint('case_scans_pk', ['case_id', 'scanned_at', 'verification_id'])
    .execute();

  await db.schema
    .createTable('case_notes')
    .addColumn('id', text(dialect), (c) => c.primaryKey())
    .addColumn('case_id', text(dialect), (c) => c.notNull())
    .addColumn('author_type', text(dialect), (c) => c.notNull())
    .addColumn('author_id', text(dialect), (c) => c.notNull())
    .addColumn('body', text(dialect), (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('case_notes_case').on('case_notes').columns(['case_id', 'created_at', 'id']).execute();
}
