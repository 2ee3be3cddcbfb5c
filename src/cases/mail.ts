// The cases' mails (docs/email.md): a case's opening and the daily digest, rendered when sent so they
// tell the case as it stands. A person disabled meanwhile, a case pruned, or a quiet day sends nothing.
import type { Kernel } from '../kernel.js';
import type { Mode } from '../db/schema.js';
import { digestWindow, escapeHtml, mailHtml, type Mail, type MailRenderers, type MailRow } from '../mail/index.js';
import { findUserInTeam } from '../users/index.js';
import { signalsOf } from '../signals/index.js';
import { isoMicros } from '../time.js';
import { DIGEST_SHOWN, caseDigest, isQuiet, type CaseDigest } from './digest-repository.js';
import { findCase, type CaseRow } from './repository.js';

type Services = Pick<Kernel, 'db' | 'config'>;

const words = (signal: string) => signal.replaceAll('_', ' ');
const minute = (micros: number) => `${isoMicros(micros).slice(0, 16).replace('T', ' ')} UTC`;
const worldName = (mode: Mode) => (mode === 'production' ? '' : '[sandbox] ');

function summary(row: CaseRow): string {
  const countries = JSON.parse(row.countries) as string[];
  const signals = signalsOf(row.signals).map(words).join(', ');
  return `${row.tag_id}: ${row.scans} flagged scan${row.scans === 1 ? '' : 's'} (${signals})${countries.length ? ` from ${countries.join(', ')}` : ''}, opened ${minute(row.opened_at)}`;
}

export function caseMails(ctx: Services): Pick<MailRenderers, 'case_opened' | 'digest'> {
  const consoleUrl = `${ctx.config.console.publicUrl}/console`;
  const caseUrl = (id: string) => `${consoleUrl}/cases/${encodeURIComponent(id)}`;
  const recipient = async (row: MailRow) => {
    const user = await findUserInTeam(ctx.db.kysely, row.user_id, row.team_id);
    return user && user.disabled_at === null ? user.email : null;
  };

  async function caseOpened(rows: MailRow[]): Promise<Mail | null> {
    const [first] = rows as [MailRow, ...MailRow[]];
    const to = await recipient(first);
    if (!to) return null;
    const found = (await Promise.all(rows.map((row) => findCase(ctx.db.kysely, { teamId: row.team_id, mode: row.mode! }, row.subject_id!)))).filter(
      (row) => row !== undefined,
    );
    if (found.length === 0) return null;
    return found.length === 1 ? oneOpened(to, found[0]!) : manyOpened(to, found);
  }

  function oneOpened(to: string, found: CaseRow): Mail {
    const url = caseUrl(found.id);
    const subject = `${worldName(found.mode)}Case opened: tag ${found.tag_id}`;
    const previous = found.previous_case_id ? `It follows the tag's resolved case ${found.previous_case_id}.` : '';
    const text = [
      `A case opened for tag ${found.tag_id} in your team's ${found.mode}.`,
      '',
      summary(found),
      `State now: ${found.state}.`,
      ...(previous ? [previous] : []),
      '',
      `Work it in the console: ${url}`,
    ].join('\n');
    const html = mailHtml(
      subject,
      [
        `<p>A case opened for tag <code>${escapeHtml(found.tag_id)}</code> in your team's ${escapeHtml(found.mode)}.</p>`,
        `<p>${escapeHtml(summary(found))}.<br>State now: ${escapeHtml(found.state)}.</p>`,
        previous ? `<p>${escapeHtml(previous)}</p>` : '',
        `<p><a href="${escapeHtml(url)}">Work the case in the console</a></p>`,
      ].join('\n'),
    );
    return { to, subject, text, html };
  }

  /** Openings due together (a harvest of many tags at once): one mail naming the newest, counting all. */
  function manyOpened(to: string, found: CaseRow[]): Mail {
    const newest = [...found].sort((a, b) => b.opened_at - a.opened_at || (a.id < b.id ? 1 : -1));
    const shown = newest.slice(0, DIGEST_SHOWN);
    const rest = found.length - shown.length;
    const sandboxOnly = found.every((c) => c.mode === 'sandbox');
    const subject = `${sandboxOnly ? '[sandbox] ' : ''}${found.length} cases opened`;
    const text = [
      `${found.length} cases opened in your team at once: many tags flagged together usually share one cause.`,
      '',
      ...shown.map((c) => `${worldName(c.mode)}${summary(c)} — ${caseUrl(c.id)}`),
      ...(rest > 0 ? [`… and ${rest} more`] : []),
      '',
      `All cases: ${consoleUrl}/cases`,
    ].join('\n');
    const html = mailHtml(
      subject,
      [
        `<p>${found.length} cases opened in your team at once: many tags flagged together usually share one cause.</p>`,
        `<ul>${shown.map((c) => `<li><a href="${escapeHtml(caseUrl(c.id))}">${escapeHtml(worldName(c.mode) + summary(c))}</a></li>`).join('')}${rest > 0 ? `<li>… and ${rest} more</li>` : ''}</ul>`,
        `<p><a href="${escapeHtml(`${consoleUrl}/cases`)}">All cases in the console</a></p>`,
      ].join('\n'),
    );
    return { to, subject, text, html };
  }

  async function digest([row]: MailRow[], settings: { sandbox: number } | undefined): Promise<Mail | null> {
    const to = await recipient(row!);
    if (!to) return null;
    const window = digestWindow(row!.subject_id!, ctx.config.mail?.digestHour ?? 0);
    const modes: Mode[] = settings?.sandbox === 1 ? ['production', 'sandbox'] : ['production'];
    const digests = await Promise.all(modes.map((mode) => caseDigest(ctx.db.kysely, { teamId: row!.team_id, mode }, window)));
    if (digests.every(isQuiet)) return null;
    const subject = `Cases on ${row!.subject_id}: ${digests.map((d) => `${worldName(d.world.mode)}${d.unresolved.open} open, ${d.opened.count} new, ${d.resolved.count} resolved`).join('; ')}`;
    const parts = digests.map((d) => digestText(d, caseUrl));
    const text = [`Your team's cases, ${minute(window.since)} to ${minute(window.until)}.`, '', ...parts, `All cases: ${consoleUrl}/cases`].join('\n');
    const html = mailHtml(
      subject,
      [
        `<p>Your team's cases, ${escapeHtml(minute(window.since))} to ${escapeHtml(minute(window.until))}.</p>`,
        ...digests.map((d) => digestHtml(d, caseUrl)),
        `<p><a href="${escapeHtml(`${consoleUrl}/cases`)}">All cases in the console</a></p>`,
      ].join('\n'),
    );
    return { to, subject, text, html };
  }

  return { case_opened: caseOpened, digest };
}

const more = (part: { count: number; cases: unknown[] }) => (part.count > part.cases.length ? [`  … and ${part.count - part.cases.length} more`] : []);

function digestText(d: CaseDigest, caseUrl: (id: string) => string): string {
  const lines = [
    `${d.world.mode === 'production' ? 'Production' : 'Sandbox'}: ${d.unresolved.open} open, ${d.unresolved.acknowledged} acknowledged.`,
    `Opened in the last 24 hours: ${d.opened.count}`,
    ...d.opened.cases.map((c) => `  ${summary(c)} — ${caseUrl(c.id)}`),
    ...more(d.opened),
    `Resolved in the last 24 hours: ${d.resolved.count}`,
    ...d.resolved.cases.map((c) => `  ${c.tag_id}: ${c.resolution} — ${caseUrl(c.id)}`),
    ...more(d.resolved),
    '',
  ];
  return lines.join('\n');
}

function digestHtml(d: CaseDigest, caseUrl: (id: string) => string): string {
  const item = (c: CaseRow, said: string) => `<li><a href="${escapeHtml(caseUrl(c.id))}">${escapeHtml(said)}</a></li>`;
  const list = (part: CaseDigest['opened'], said: (c: CaseRow) => string) =>
    part.count === 0
      ? ''
      : `<ul>${part.cases.map((c) => item(c, said(c))).join('')}${more(part)
          .map((m) => `<li>${escapeHtml(m.trim())}</li>`)
          .join('')}</ul>`;
  return [
    `<h2>${d.world.mode === 'production' ? 'Production' : 'Sandbox'}</h2>`,
    `<p>${d.unresolved.open} open, ${d.unresolved.acknowledged} acknowledged.</p>`,
    `<p>Opened in the last 24 hours: ${d.opened.count}</p>`,
    list(d.opened, summary),
    `<p>Resolved in the last 24 hours: ${d.resolved.count}</p>`,
    list(d.resolved, (c) => `${c.tag_id}: ${c.resolution ?? ''}`),
  ].join('\n');
}
