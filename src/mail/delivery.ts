// The mail job (docs/email.md#the-outbox): claims due mails, renders each as it is sent (its case or
// digest as it stands now, an invite's link made now), hands it to the SMTP server and records the end
// of the attempt. A 4xx, a lost connection or a refused login is tried again on the schedule; a 5xx
// refusing the address or the message ends the mail as failed. A crash between the server's 250 and the record
// can send a mail twice (as a webhook can be); the lease keeps two processes from sending one at once,
// and every mail carries its outbox id as Message-ID, so a client shows a repeat as the same message.
import { createTransport, type Transporter } from 'nodemailer';
import type { BackgroundJob } from '../background-job.js';
import { everyInterval } from '../background-job.js';
import type { MailConfig } from '../config.js';
import type { Kernel } from '../kernel.js';
import type { MailKind } from '../db/schema.js';
import { queueDigests } from './queue.js';
import * as mailRepo from './repository.js';
import type { MailRow, Outcome, SettingsRow } from './repository.js';

/** What a mail says, as its kind's renderer writes it. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * Renders claimed mails of one kind to one person as one mail (several only for case openings due together);
 * null when there is nothing to tell any more (a disabled person, a pruned case, a quiet day).
 */
export type RenderMail = (rows: MailRow[], settings: SettingsRow | undefined, at: number) => Promise<Mail | null>;
export type MailRenderers = Record<MailKind, RenderMail>;

/** Delay before attempt n+1 after n failed attempts; after the last the mail has failed. */
export const MAIL_RETRY_SECONDS = [30, 120, 600, 1800, 7200, 21600];
const LEASE_MICROS = 5 * 60 * 1_000_000;
/** Mails claimed at once: also the most case openings one mail can stand for. */
const CLAIM = 200;
const DAY_MICROS = 86_400_000_000;

/** The newest day (YYYY-MM-DD) whose digest is due at `now`: the digest of D covers the 24 hours before D at `hour` UTC. */
export function digestDay(now: number, hour: number): string {
  const at = now - hour * 3_600_000_000;
  return new Date(Math.floor(at / 1000)).toISOString().slice(0, 10);
}

/** The window [since, until) a digest of `day` tells. */
export function digestWindow(day: string, hour: number): { since: number; until: number } {
  const until = Date.parse(`${day}T00:00:00Z`) * 1000 + hour * 3_600_000_000;
  return { since: until - DAY_MICROS, until };
}

/** nodemailer's codes for a server that refused this mail's address (EENVELOPE) or content (EMESSAGE). */
const REFUSED_MAIL = new Set(['EENVELOPE', 'EMESSAGE']);

function outcomeOf(error: unknown, attempts: number, now: number, scale: number): Outcome {
  const { responseCode, code, message } = error as { responseCode?: number; code?: string; message?: string };
  const said = (message ?? String(error)).slice(0, 500);
  // A 5xx about this mail will not change; one about the relay (a refused login, EAUTH) is the operator's
  // to fix, and the mail waits for it on the schedule.
  if (responseCode !== undefined && responseCode >= 500 && code !== undefined && REFUSED_MAIL.has(code)) return { status: 'failed', error: said };
  const delay = MAIL_RETRY_SECONDS[attempts];
  if (delay === undefined) return { status: 'failed', error: said };
  return { status: 'pending', retryAt: now + Math.round(delay * scale * 1_000_000), error: said };
}

/**
 * The claimed mails as the mails to send: a person's case openings due together are one (a harvest of many
 * tags is one mail, not hundreds); every other mail is its own.
 */
function grouped(rows: MailRow[]): MailRow[][] {
  const groups = new Map<string, MailRow[]>();
  for (const row of rows) {
    const key = row.kind === 'case_opened' ? `case_opened ${row.user_id}` : row.id;
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return [...groups.values()];
}

export class MailSender {
  private readonly transport: Transporter;
  private readonly log;

  constructor(
    private readonly ctx: Pick<Kernel, 'db' | 'clock' | 'log'>,
    private readonly config: MailConfig,
    private readonly renderers: MailRenderers,
  ) {
    // A connection per mail: mail is rare next to scans, and a held connection would outlive a restarted relay.
    this.transport = createTransport(config.smtpUrl);
    this.log = ctx.log.child({ job: 'mail' });
  }

  /** Queues the digest due now, then sends what is due; returns how many mails ended their attempt (a grouped one counts once). */
  async round(): Promise<number> {
    const now = this.ctx.clock.nowMicros();
    const day = digestDay(now, this.config.digestHour);
    await queueDigests(this.ctx.db.kysely, day, digestWindow(day, this.config.digestHour).until, now);
    let done = 0;
    for (;;) {
      const at = this.ctx.clock.nowMicros();
      const claimed = await mailRepo.claimDue(this.ctx.db, at, at + LEASE_MICROS, CLAIM);
      if (claimed.length === 0) return done;
      for (const rows of grouped(claimed)) {
        await mailRepo.recordOutcome(
          this.ctx.db.kysely,
          rows.map((row) => row.id),
          await this.attempt(rows),
        );
        done++;
      }
    }
  }

  /** One mail for `rows` (one person, one kind), named by the first row's id. */
  private async attempt(rows: MailRow[]): Promise<Outcome> {
    const [first] = rows as [MailRow, ...MailRow[]];
    const now = this.ctx.clock.nowMicros();
    try {
      const settings = await mailRepo.settingsOf(this.ctx.db.kysely, first.user_id);
      const mail = await this.renderers[first.kind](rows, settings, now);
      if (mail === null) return { status: 'skipped', at: now };
      await this.transport.sendMail({ from: this.config.from, ...mail, messageId: `<${first.id}@tapproof>` });
      return { status: 'sent', at: this.ctx.clock.nowMicros() };
    } catch (error) {
      const outcome = outcomeOf(error, Math.max(...rows.map((row) => row.attempts)), now, this.config.retryScale);
      // The server's answer names the address at most; never the body, which may hold a link.
      this.log.warn({ mail: first.id, mails: rows.length, kind: first.kind, error: 'error' in outcome ? outcome.error : null }, 'mail not sent');
      return outcome;
    }
  }

  close(): void {
    this.transport.close();
  }
}

/** The mail job of serve and worker: every few seconds when SMTP is set, nothing otherwise. */
export function mailDelivery(renderers: (ctx: Kernel) => MailRenderers, everyMs = 2000): BackgroundJob<Kernel> {
  return {
    name: 'mail',
    start(ctx) {
      const config = ctx.config.mail;
      if (config === null) return async () => {};
      const sender = new MailSender(ctx, config, renderers(ctx));
      const stop = everyInterval(ctx.log, { everyMs, atStart: true, failure: 'mail round failed; trying again' }, async () => void (await sender.round()));
      return async () => {
        await stop();
        sender.close();
      };
    },
  };
}
