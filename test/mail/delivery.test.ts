// The mail outbox against a real SMTP server on loopback, on both engines: a case's opening is mailed once
// to each person who asked (and not to who did not); a busy relay (451) is tried again and the mail
// arrives once; a refusal (550) ends it as failed; openings due together are one mail; two senders (two
// processes) never tell one opening twice; a mail a dead sender held goes when its lease ends; an invite with email on carries no link in the answer
// and its mailed link signs the person in.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES, call, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { startSmtp, type TestSmtp } from '../kit/smtp.js';
import { MailSender } from '../../src/mail/delivery.js';
import { queueCaseOpened } from '../../src/mail/queue.js';
import { claimDue } from '../../src/mail/repository.js';
import { mailRenderers } from '../../src/worker.js';
import { authCall, invited, redeemed, tokenOf, type Browserish } from '../users/helpers.js';

const CONSOLE = 'https://console.example.com';

for (const kind of DATABASES) {
  describe(`mail (${kind})`, () => {
    let smtp: TestSmtp;
    let server: TestServer;
    let world: SeededTeam;
    let senders: MailSender[];
    let admin: { id: string; session: Browserish };
    let quiet: { id: string; session: Browserish };

    before(async () => {
      smtp = await startSmtp();
      server = await startServer(kind, { TAPPROOF_SMTP_URL: smtp.url, TAPPROOF_PUBLIC_URL: CONSOLE, TAPPROOF_MAIL_RETRY_SCALE: '0', LOG_LEVEL: 'silent' });
      world = await server.seedTeam();
      senders = [0, 1].map(() => new MailSender(server.ctx, server.ctx.config.mail!, mailRenderers(server.ctx)));
      const made = await invited(server, world.teamId, `admin-${kind}@example.com`, 'admin');
      admin = { id: made.id, session: await redeemed(server, made.token) };
      const other = await invited(server, world.teamId, `quiet-${kind}@example.com`, 'read');
      quiet = { id: other.id, session: await redeemed(server, other.token) };
      const chosen = await authCall(server, 'PATCH', '/profile/notifications', {
        as: admin.session,
        api: true,
        body: { data: { type: 'notification-settings', attributes: { case_opened: true } } },
      });
      assert.equal(chosen.status, 200, chosen.text);
    });
    after(async () => {
      for (const sender of senders) sender.close();
      await server.close();
      await smtp.close();
    });

    const outbox = () =>
      server.ctx.db.kysely
        .selectFrom('mail_outbox')
        .select(['kind', 'user_id', 'subject_id', 'status', 'attempts', 'last_error'])
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    /** A case of the team's production, as the scan's commit would open it (its mail queued in the same transaction). */
    async function openedCase(n: number) {
      const id = `case_${String(n).padStart(22, '0')}`;
      const at = server.clock.nowMicros();
      const row = {
        id,
        team_id: world.teamId,
        mode: 'production' as const,
        tag_id: `tag_${String(n).padStart(22, '0')}`,
        state: 'open' as const,
        opened_at: at,
        last_seen_at: at,
        updated_at: at,
        scans: 1,
        signals: 'counter_gap',
        signal_counts: JSON.stringify({ counter_gap: 1 }),
        countries: '["DE"]',
        assignee_id: null,
        resolution: null,
        resolution_note: null,
        previous_case_id: null,
        acknowledged_at: null,
        resolved_at: null,
      };
      await server.ctx.db.kysely.transaction().execute(async (trx) => {
        await trx.insertInto('cases').values(row).execute();
        await queueCaseOpened(trx, [row]);
        // Queued twice (a retried commit): still one mail.
        await queueCaseOpened(trx, [row]);
      });
      return id;
    }

    test('an opening is mailed once, to who asked only, with a link to the case', async () => {
      const id = await openedCase(1);
      assert.deepEqual(await outbox(), [{ kind: 'case_opened', user_id: admin.id, subject_id: id, status: 'pending', attempts: 0, last_error: null }]);
      assert.equal(await senders[0]!.round(), 1);
      assert.equal(await senders[0]!.round(), 0);
      assert.equal(smtp.received.length, 1);
      const [mail] = smtp.received;
      assert.deepEqual([mail!.to, mail!.subject], [[`admin-${kind}@example.com`], `Case opened: tag tag_${'1'.padStart(22, '0')}`]);
      assert.ok(mail!.text.includes(`${CONSOLE}/console/cases/${id}`), mail!.text);
      assert.match(mail!.messageId, /^<mail_[0-9A-Za-z]{22}@tapproof>$/);
      assert.deepEqual(
        (await outbox()).map((m) => [m.status, m.attempts]),
        [['sent', 1]],
      );
    });

    test('a busy relay (451) is tried again and the mail arrives once; a refusal (550) fails it for good', async () => {
      smtp.refuseNext(1, 451);
      await openedCase(2);
      assert.equal(await senders[0]!.round(), 2); // refused, then (retry delays scaled to 0) sent
      assert.equal(smtp.refused, 1);
      assert.equal(smtp.received.length, 2);
      const second = (await outbox())[1]!;
      assert.deepEqual([second.status, second.attempts], ['sent', 2]);

      smtp.refuseNext(1, 550);
      await openedCase(3);
      assert.equal(await senders[0]!.round(), 1);
      assert.equal(await senders[0]!.round(), 0);
      const third = (await outbox())[2]!;
      assert.deepEqual([third.status, third.attempts], ['failed', 1]);
      assert.match(third.last_error!, /550/);
      assert.equal(smtp.received.length, 2);
    });

    test('openings due together are one mail; two senders at once send each opening exactly once', async () => {
      const before = smtp.received.length;
      const ids: string[] = [];
      for (let n = 10; n < 35; n++) ids.push(await openedCase(n));
      const [a, b] = await Promise.all(senders.map((s) => s.round()));
      const mails = smtp.received.slice(before);
      assert.equal(mails.length, a! + b!);
      // However the two senders split the claim, each opening is told once: named (the newest 20 of a mail) or counted.
      const told = mails.flatMap((m) => [...m.text.matchAll(/cases\/(case_\w+)/g)].map((match) => match[1]!));
      const counted = mails.reduce((sum, m) => sum + Number(/… and (\d+) more/.exec(m.text)?.[1] ?? 0), 0);
      assert.equal(new Set(told).size, told.length);
      assert.ok(told.every((id) => ids.includes(id)));
      assert.equal(told.length + counted, 25);
      if (mails.length === 1) {
        assert.equal(mails[0]!.subject, '25 cases opened');
        assert.ok(mails[0]!.text.startsWith('25 cases opened in your team at once'), mails[0]!.text);
        // The newest 20 named, newest first; the 5 oldest counted.
        assert.deepEqual(told, ids.slice(5).reverse());
        assert.ok(mails[0]!.text.includes('… and 5 more'));
      }
      const rows = (await outbox()).filter((m) => ids.includes(m.subject_id!));
      assert.deepEqual(new Set(rows.map((m) => `${m.status} ${m.attempts}`)), new Set(['sent 1']));
      assert.equal(rows.length, 25);
    });

    test('a relay that refuses the login keeps the mail waiting (the operator fixes the password); the right one sends it', async () => {
      const relay = await startSmtp({ login: { user: 'tapproof', pass: 'right' } });
      const wrong = new MailSender(
        server.ctx,
        { ...server.ctx.config.mail!, smtpUrl: relay.url.replace('//', '//tapproof:wrong@'), retryScale: 1 },
        mailRenderers(server.ctx),
      );
      const right = new MailSender(
        server.ctx,
        { ...server.ctx.config.mail!, smtpUrl: relay.url.replace('//', '//tapproof:right@') },
        mailRenderers(server.ctx),
      );
      try {
        const id = await openedCase(60);
        assert.equal(await wrong.round(), 1);
        const waiting = (await outbox()).find((m) => m.subject_id === id)!;
        assert.deepEqual([waiting.status, waiting.attempts], ['pending', 1]);
        assert.match(waiting.last_error!, /535/);
        assert.equal(relay.received.length, 0);
        // Due again 30 s on.
        assert.equal(await right.round(), 0);
        server.clock.advance(33_000);
        assert.equal(await right.round(), 1);
        assert.deepEqual(
          relay.received.map((m) => m.subject),
          [`Case opened: tag tag_${'60'.padStart(22, '0')}`],
        );
      } finally {
        wrong.close();
        right.close();
        await relay.close();
      }
    });

    test('a sender that stops holding mails (a crash, a restart) loses none: they go when its lease ends', async () => {
      const before = smtp.received.length;
      const id = await openedCase(50);
      // Claimed by a process that then died before sending.
      const held = await claimDue(server.ctx.db, server.clock.nowMicros(), server.clock.nowMicros() + 5 * 60_000_000, 10);
      assert.deepEqual(
        held.map((m) => m.subject_id),
        [id],
      );
      assert.equal(await senders[1]!.round(), 0);
      server.clock.advance(5 * 60_000 + 1);
      assert.equal(await senders[1]!.round(), 1);
      assert.equal(smtp.received.length, before + 1);
      assert.ok(smtp.received[before]!.text.includes(`/cases/${id}`));
    });

    test('a person disabled after asking for openings is queued a mail but sent none', async () => {
      const off = await authCall(server, 'PATCH', '/profile/notifications', {
        as: quiet.session,
        api: true,
        body: { data: { type: 'notification-settings', attributes: { case_opened: true } } },
      });
      assert.equal(off.status, 200, off.text);
      const disabled = await call(server, 'PATCH', `/users/${quiet.id}`, {
        key: world.production.key,
        body: { data: { type: 'users', id: quiet.id, attributes: { disabled: true } } },
      });
      assert.equal(disabled.status, 200, disabled.text);
      const before = smtp.received.length;
      await openedCase(40);
      assert.equal(await senders[0]!.round(), 2);
      assert.deepEqual(
        smtp.received.slice(before).map((m) => m.to),
        [[`admin-${kind}@example.com`]],
      );
      const rows = (await outbox()).filter((m) => m.subject_id === `case_${'40'.padStart(22, '0')}`);
      assert.deepEqual(
        rows.map((m) => [m.user_id, m.status]).sort(),
        [
          [admin.id, 'sent'],
          [quiet.id, 'skipped'],
        ].sort(),
      );
    });

    test('an invite is emailed: the answer holds no link, the mailed one signs the person in', async () => {
      const response = await call(server, 'POST', '/users', {
        key: world.production.key,
        body: { data: { type: 'users', attributes: { email: `new-${kind}@example.com`, role: 'read' } } },
      });
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(response.body.data.attributes.link, { url: null, expires_at: null, emailed_to: `new-${kind}@example.com` });
      const before = smtp.received.length;
      assert.equal(await senders[0]!.round(), 1);
      const mail = smtp.received[before]!;
      assert.deepEqual([mail.to, mail.subject], [[`new-${kind}@example.com`], "You're invited to your team's tapproof console"]);
      const url = /https:\/\/console\.example\.com\/console\/welcome#\S+/.exec(mail.text)![0];
      assert.ok(mail.html.includes(`href="${url}"`));
      const session = await redeemed(server, tokenOf(url));
      assert.ok(session.cookie);
    });
  });
}
