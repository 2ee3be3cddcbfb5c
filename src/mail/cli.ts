// Operator commands: whether this server's mail works (a test mail through the configured relay, its
// answer in one line) and what the outbox holds (per kind and status, the latest failures).
import type { Command } from 'commander';
import { createTransport } from 'nodemailer';
import { CliError, commandGroup, output, table, type WithContext } from '../cli-kit.js';
import type { Kernel } from '../kernel.js';
import { isoMicros } from '../time.js';
import { escapeHtml, mailHtml } from './html.js';
import * as mailRepo from './repository.js';

const OFF = 'email is off: set TAPPROOF_SMTP_URL and TAPPROOF_PUBLIC_URL (docs/email.md)';

export function registerMailCommands(program: Command, withContext: WithContext<Kernel>): void {
  const mail = commandGroup(program, 'mail', "test this server's email and read its outbox");

  mail
    .command('test')
    .description('send one mail now through TAPPROOF_SMTP_URL and print what the relay answered')
    .requiredOption('--to <address>', 'where to send it')
    .action(async (opts: { to: string }) => {
      if (!/^[^\s@]+@[^\s@]+$/.test(opts.to)) throw new CliError(`--to must be an email address, got "${opts.to}"`);
      const answer = await withContext(async (ctx) => {
        const config = ctx.config.mail;
        if (config === null) throw new CliError(OFF);
        const transport = createTransport(config.smtpUrl);
        try {
          const text = `tapproof can send mail from ${config.from} through this relay. The console: ${ctx.config.console.publicUrl}/console`;
          const sent = await transport.sendMail({
            from: config.from,
            to: opts.to,
            subject: 'tapproof test mail',
            text,
            html: mailHtml('tapproof test mail', `<p>${escapeHtml(text)}</p>`),
          });
          return String(sent.response);
        } catch (error) {
          throw new CliError(`the relay did not take the mail: ${(error as Error).message}`);
        } finally {
          transport.close();
        }
      });
      process.stdout.write(`sent to ${opts.to}: ${answer}\n`);
    });

  mail
    .command('status')
    .description('the outbox: mails per kind and status, and the latest that failed')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      const { counts, failed, off } = await withContext(async (ctx) => ({
        counts: await mailRepo.countsByStatus(ctx.db.kysely),
        failed: await mailRepo.latestFailed(ctx.db.kysely, 10),
        off: ctx.config.mail === null ? OFF : null,
      }));
      const human = [
        ...(off ? [off] : []),
        counts.length === 0 ? 'the outbox is empty' : table([['kind', 'status', 'mails'], ...counts.map((c) => [c.kind, c.status, String(c.count)])]),
        ...(failed.length === 0
          ? []
          : [
              '',
              'latest failures:',
              table([
                ['mail', 'kind', 'created_at', 'attempts', 'error'],
                ...failed.map((f) => [f.id, f.kind, isoMicros(f.created_at), String(f.attempts), f.last_error ?? '']),
              ]),
            ]),
      ].join('\n');
      output(opts.json ?? false, { email: off === null ? 'on' : 'off', counts, failed }, human);
    });
}
