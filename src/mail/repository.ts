// The mail outbox and what people chose to be emailed (docs/email.md).
import { sql } from 'kysely';
import type { Db, Executor } from '../db/database.js';
import { claimDue as claimLeased } from '../db/leases.js';
import type { MailOutboxTable, NotificationSettingsTable } from '../db/schema.js';

export type MailRow = MailOutboxTable;
export type SettingsRow = NotificationSettingsTable;

/** Queues mails; one already queued for the same event (its `dedupe`) is left as it is. */
export async function queueMails(db: Executor, rows: MailRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('mail_outbox')
    .values(rows)
    .onConflict((oc) => oc.column('dedupe').doNothing())
    .execute();
}

export function settingsOf(db: Executor, userId: string): Promise<SettingsRow | undefined> {
  return db.selectFrom('notification_settings').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

export async function saveSettings(db: Executor, row: SettingsRow): Promise<void> {
  await db
    .insertInto('notification_settings')
    .values(row)
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({
        case_opened: row.case_opened,
        daily_digest: row.daily_digest,
        sandbox: row.sandbox,
        digest_from: row.digest_from,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** The people of a team who want to hear of a case opening in `mode`. */
export function caseListeners(db: Executor, teamId: string, mode: string): Promise<{ user_id: string }[]> {
  let query = db.selectFrom('notification_settings').select('user_id').where('team_id', '=', teamId).where('case_opened', '=', 1);
  if (mode !== 'production') query = query.where('sandbox', '=', 1);
  return query.orderBy('user_id').execute();
}

/** Everyone who wants the digest of a day that ends at `until`: who had turned it on by then. */
export function digestReaders(db: Executor, until: number): Promise<{ user_id: string; team_id: string }[]> {
  return db
    .selectFrom('notification_settings')
    .select(['user_id', 'team_id'])
    .where('daily_digest', '=', 1)
    .where('digest_from', '<', until)
    .orderBy('user_id')
    .execute();
}

/**
 * Claims up to `limit` due mails until `leaseUntil`: another process skips them until the lease ends, so
 * two senders never hold one mail at once. SQLite looks before it takes the write lock, as webhooks do.
 */
/** Claims up to `limit` due mails until `leaseUntil` (src/db/leases.ts): two senders never hold one mail at once. */
export async function claimDue(db: Db, now: number, leaseUntil: number, limit: number): Promise<MailRow[]> {
  const ids = await claimLeased<string>(db, 'mail_outbox', now, leaseUntil, limit);
  if (ids.length === 0) return [];
  return db.kysely.selectFrom('mail_outbox').selectAll().where('id', 'in', ids).orderBy('created_at').orderBy('id').execute();
}

/** The end of one attempt: sent, skipped (nothing to tell), due again at `retryAt`, or failed for good. */
export type Outcome = { status: 'sent' | 'skipped'; at: number } | { status: 'pending'; retryAt: number; error: string } | { status: 'failed'; error: string };

export async function recordOutcome(db: Executor, id: string, outcome: Outcome): Promise<void> {
  const attempts = sql<number>`attempts + 1`;
  const set =
    outcome.status === 'pending'
      ? { attempts, next_attempt_at: outcome.retryAt, last_error: outcome.error }
      : outcome.status === 'failed'
        ? { attempts, status: 'failed' as const, last_error: outcome.error }
        : { attempts, status: outcome.status, sent_at: outcome.at, last_error: null };
  await db.updateTable('mail_outbox').set(set).where('id', '=', id).where('status', '=', 'pending').execute();
}
