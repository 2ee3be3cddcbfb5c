// The mail job (docs/email.md#the-outbox): claims due mails, renders each as it is sent (its case or
// digest as it stands now, an invite's link made now), hands it to the SMTP server and records the end
// of the attempt. A 4xx or a lost connection is tried again on the schedule; a 5xx (the server refused
// the address or the message) ends the mail as failed. A crash between the server's 250 and the record
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

/** Renders a claimed mail; null when there is nothing to tell any more (a disabled person, a quiet day). */
export type RenderMail = (row: MailRow, settings: SettingsRow | undefined, at: number) => Promise<Mail | null>;
export type MailRenderers = Record<MailKind, RenderMail>;

/** Delay before attempt n+1 after n failed attempts; after the last the mail has failed. */
export const MAIL_RETRY_SECONDS = [30, 120, 600, 1800, 7200, 21600];
const LEASE_MICROS = 5 * 60 * 1_000_000;
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

function outcomeOf(error: unknown, attempts: number, now: number, scale: number): Outcome {
  const { responseCode, message } = error as { responseCode?: number; message?: string };
  const said = (message ?? String(error)).slice(0, 500);
  if (responseCode !== undefined && responseCode >= 500) return { status: 'failed', error: said };
  const delay = MAIL_RETRY_SECONDS[attempts];
  if (delay === undefined) return { status: 'failed', error: said };
  return { status: 'pending', retryAt: now + Math.round(delay * scale * 1_000_000), error: said };
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

  /** Queues the digest due now, then sends what is due; returns how many mails ended their attempt. */
  async round(): Promise<number> {
    const now = this.ctx.clock.nowMicros();
    const day = digestDay(now, this.config.digestHour);
    await queueDigests(this.ctx.db.kysely, day, digestWindow(day, this.config.digestHour).until, now);
    let done = 0;
    for (;;) {
      const claimed = await mailRepo.claimDue(this.ctx.db, this.ctx.clock.nowMicros(), this.ctx.clock.nowMicros() + LEASE_MICROS, 20);
      if (claimed.length === 0) return done;
      for (const row of claimed) {
        await mailRepo.recordOutcome(this.ctx.db.kysely, row.id, await this.attempt(row));
        done++;
      }
    }
  }

  private async attempt(row: MailRow): Promise<Outcome> {
    const now = this.ctx.clock.nowMicros();
    try {
      const settings = await mailRepo.settingsOf(this.ctx.db.kysely, row.user_id);
      const mail = await this.renderers[row.kind](row, settings, now);
      if (mail === null) return { status: 'skipped', at: now };
      await this.transport.sendMail({ from: this.config.from, ...mail, messageId: `<${row.id}@tapproof>` });
      return { status: 'sent', at: this.ctx.clock.nowMicros() };
    } catch (error) {
      const outcome = outcomeOf(error, row.attempts, now, this.config.retryScale);
      // The server's answer names the address at most; never the body, which may hold a link.
      this.log.warn({ mail: row.id, kind: row.kind, error: 'error' in outcome ? outcome.error : null }, 'mail not sent');
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
