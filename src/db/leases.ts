// Claiming due rows of an outbox (webhook deliveries, mails) for one sender: the claim pushes each row's
// due time to `leaseUntil`, so a sender that dies holding rows loses them when the lease runs out.
// PostgreSQL: concurrent senders skip each other's rows. SQLite has one writer: an idle poll should not
// take the write lock, so it looks first (a read) and claims only what is due; the due-time check in the
// UPDATE leaves out anything another process claimed in between.
import { sql } from 'kysely';
import type { Db } from './database.js';

/** An outbox table: a `pending` status and a `next_attempt_at` in microseconds. */
export type Outbox = 'deliveries' | 'mail_outbox';

export async function claimDue<I extends string | number>(db: Db, table: Outbox, now: number, leaseUntil: number, limit: number): Promise<I[]> {
  const name = sql.table(table);
  if (db.dialect === 'postgres') {
    const claimed = await sql<{ id: I }>`
      update ${name} set next_attempt_at = ${leaseUntil}
      where id in (
        select id from ${name}
        where status = 'pending' and next_attempt_at <= ${now}
        order by next_attempt_at
        limit ${limit}
        for update skip locked
      )
      returning id`.execute(db.kysely);
    return claimed.rows.map((r) => r.id);
  }
  const due = await sql<{ id: I }>`
    select id from ${name} where status = 'pending' and next_attempt_at <= ${now} order by next_attempt_at limit ${limit}`.execute(db.kysely);
  if (due.rows.length === 0) return [];
  const claimed = await sql<{ id: I }>`
    update ${name} set next_attempt_at = ${leaseUntil}
    where id in (${sql.join(due.rows.map((r) => r.id))}) and status = 'pending' and next_attempt_at <= ${now}
    returning id`.execute(db.kysely);
  return claimed.rows.map((r) => r.id);
}
