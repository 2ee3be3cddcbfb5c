import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { text } from './helpers.js';

// Email to people (docs/email.md): what each person chose to be emailed, and the mail outbox. A mail is a
// row written in the transaction of what it announces (a case's opening is in the scan's commit), sent
// later by the mail job and retried with backoff; `dedupe` is unique, so one event or one day's digest
// makes one mail however many processes queue it. Rows hold references, never a body or a link: a mail
// is rendered when it is sent, and an invite's link is made then (no secret at rest).
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('notification_settings')
    .addColumn('user_id', text(dialect), (c) => c.primaryKey())
    .addColumn('team_id', text(dialect), (c) => c.notNull())
    .addColumn('case_opened', 'integer', (c) => c.notNull())
    .addColumn('daily_digest', 'integer', (c) => c.notNull())
    .addColumn('sandbox', 'integer', (c) => c.notNull())
    // When the digest was turned on: the first digest is the first one whose day ends after it.
    .addColumn('digest_from', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // A case's opening reads who of its team wants to hear of it, in the scan's commit.
  await db.schema.createIndex('notification_settings_team').on('notification_settings').columns(['team_id', 'user_id']).execute();
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', text(dialect), (c) => c.primaryKey())
    .addColumn('team_id', text(dialect), (c) => c.notNull())
    .addColumn('user_id', text(dialect), (c) => c.notNull())
    .addColumn('kind', text(dialect), (c) => c.notNull())
    .addColumn('mode', text(dialect))
    .addColumn('subject_id', text(dialect))
    .addColumn('dedupe', text(dialect), (c) => c.notNull().unique())
    .addColumn('status', text(dialect), (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('last_error', text(dialect))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .execute();
  await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['next_attempt_at']).where(sql.ref('status'), '=', sql.lit('pending')).execute();
  await db.schema.createIndex('mail_outbox_user').on('mail_outbox').columns(['user_id', 'created_at']).execute();
  // The digest's "resolved since yesterday" is one range of a world's resolved cases.
  await db.schema
    .createIndex('cases_world_resolved')
    .on('cases')
    .columns(['team_id', 'mode', 'resolved_at', 'id'])
    .where(sql.ref('resolved_at'), 'is not', null)
    .execute();
}
