// Putting mails in the outbox, in the transaction of what they tell (docs/email.md#the-outbox): a case's
// opening in the scan's commit, an invite with the person's row, a day's digest once for every process.
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import { newId } from '../ids.js';
import * as mailRepo from './repository.js';
import type { MailRow } from './repository.js';

const mail = (fields: Pick<MailRow, 'team_id' | 'user_id' | 'kind' | 'mode' | 'subject_id' | 'dedupe'>, at: number): MailRow => ({
  id: newId('mail'),
  ...fields,
  status: 'pending',
  attempts: 0,
  next_attempt_at: at,
  last_error: null,
  created_at: at,
  sent_at: null,
});

/** A mail to each person of the case's team who asked to hear of openings (in this mode): one read per world. */
export async function queueCaseOpened(db: Executor, cases: { id: string; team_id: string; mode: Mode; opened_at: number }[]): Promise<void> {
  const worlds = new Map<string, typeof cases>();
  for (const opened of cases) {
    const key = `${opened.team_id} ${opened.mode}`;
    worlds.set(key, [...(worlds.get(key) ?? []), opened]);
  }
  for (const [first, ...rest] of worlds.values()) {
    const listeners = await mailRepo.caseListeners(db, first!.team_id, first!.mode);
    const rows = [first!, ...rest].flatMap((opened) =>
      listeners.map(({ user_id }) =>
        mail(
          { team_id: opened.team_id, user_id, kind: 'case_opened', mode: opened.mode, subject_id: opened.id, dedupe: `case_opened:${opened.id}:${user_id}` },
          opened.opened_at,
        ),
      ),
    );
    await mailRepo.queueMails(db, rows);
  }
}

/**
 * The digest of `day` (YYYY-MM-DD, ending at `until`) for everyone who wanted one by then; queued once per
 * person and day however often and in however many processes this runs.
 */
export async function queueDigests(db: Executor, day: string, until: number, at: number): Promise<number> {
  const readers = await mailRepo.digestReaders(db, until);
  await mailRepo.queueMails(
    db,
    readers.map(({ user_id, team_id }) => mail({ team_id, user_id, kind: 'digest', mode: null, subject_id: day, dedupe: `digest:${user_id}:${day}` }, at)),
  );
  return readers.length;
}

/** An invite's or a reset's link, made when the mail is sent: no link waits in the outbox. */
export async function queueLink(db: Executor, user: { id: string; team_id: string }, purpose: 'invite' | 'reset', at: number): Promise<void> {
  await mailRepo.queueMails(db, [
    mail({ team_id: user.team_id, user_id: user.id, kind: purpose, mode: null, subject_id: null, dedupe: `${purpose}:${user.id}:${at}` }, at),
  ]);
}
