// The mails that carry a one-time link (docs/email.md#invites-and-resets): the link is made when the mail
// is sent, in its own transaction, so the outbox never holds a secret; a later mail's link ends an
// earlier one's, as handing over a new link does.
import { inTransaction } from '../db/transaction.js';
import { escapeHtml, mailHtml, type Mail, type MailRenderers, type MailRow } from '../mail/index.js';
import { isoMicros } from '../time.js';
import type { UsersContext } from './context.js';
import * as usersRepo from './repository.js';
import { LINK_HOURS } from './rules.js';
import { issueLink } from './service.js';

const SAID = {
  invite: {
    subject: "You're invited to your team's tapproof console",
    lead: 'An admin of your team invited you to its tapproof console.',
    action: 'Set your password or register a passkey',
  },
  reset: {
    subject: 'Your tapproof sign-in was reset',
    lead: 'An admin of your team reset your sign-in: your password and passkeys were removed and your sessions ended.',
    action: 'Set a new password or register a passkey',
  },
} as const;

export function linkMails(ctx: Pick<UsersContext, 'db' | 'clock' | 'config'>): Pick<MailRenderers, 'invite' | 'reset'> {
  const render =
    (purpose: 'invite' | 'reset') =>
    async (row: MailRow): Promise<Mail | null> =>
      inTransaction(ctx.db, async (trx) => {
        const user = await usersRepo.findUserInTeam(trx, row.user_id, row.team_id);
        if (!user || user.disabled_at !== null) return null;
        const link = await issueLink(trx, ctx, user.id, purpose, ctx.config.console.publicUrl!);
        const said = SAID[purpose];
        const until = `${isoMicros(link.expiresAt).slice(0, 16).replace('T', ' ')} UTC`;
        const text = [
          said.lead,
          '',
          `${said.action}: ${link.url}`,
          '',
          `The link works once, for ${LINK_HOURS} hours (until ${until}).`,
          'If you did not expect this mail, ignore it.',
        ].join('\n');
        const html = mailHtml(
          said.subject,
          [
            `<p>${escapeHtml(said.lead)}</p>`,
            `<p><a href="${escapeHtml(link.url)}">${escapeHtml(said.action)}</a></p>`,
            `<p>The link works once, for ${LINK_HOURS} hours (until ${escapeHtml(until)}). If you did not expect this mail, ignore it.</p>`,
          ].join('\n'),
        );
        return { to: user.email, subject: said.subject, text, html };
      });
  return { invite: render('invite'), reset: render('reset') };
}
