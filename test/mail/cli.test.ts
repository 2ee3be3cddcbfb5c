// `tapproof mail test` and `tapproof mail status` as an operator runs them: a test mail through the
// configured relay with its answer on one line, a relay that refuses the login named in one line, email
// off said as such; the outbox counted per kind and status with its latest failures.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freshStorage, type Storage } from '../kit/harness.js';
import { startSmtp, type TestSmtp } from '../kit/smtp.js';
import { runCli } from '../cli/process.js';
import { openDatabase } from '../../src/db/database.js';

const OFF = 'tapproof: email is off: set TAPPROOF_SMTP_URL and TAPPROOF_PUBLIC_URL (docs/email.md)\n';

describe('tapproof mail', () => {
  let storage: Storage;
  let smtp: TestSmtp;
  let env: Record<string, string>;

  before(async () => {
    storage = await freshStorage('sqlite');
    smtp = await startSmtp({ login: { user: 'ops', pass: 'right' } });
    env = { ...storage.env, TAPPROOF_SMTP_URL: smtp.url.replace('//', '//ops:right@'), TAPPROOF_PUBLIC_URL: 'https://console.example.com' };
    assert.equal((await runCli(storage.env, 'migrate')).code, 0);
  });
  after(async () => {
    await smtp.close();
    await storage.drop();
  });

  test('test: one mail through the relay, its answer printed', async () => {
    const result = await runCli(env, 'mail', 'test', '--to', 'ops@example.com');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^sent to ops@example\.com: 250 [^\n]*\n$/);
    assert.deepEqual(
      smtp.received.map((m) => [m.to, m.subject]),
      [[['ops@example.com'], 'tapproof test mail']],
    );
    assert.ok(smtp.received[0]!.text.includes('https://console.example.com/console'));
  });

  test('test: a refused login, a bad address and email off are one line each, nothing sent', async () => {
    const refused = await runCli({ ...env, TAPPROOF_SMTP_URL: smtp.url.replace('//', '//ops:s3cret-wrong@') }, 'mail', 'test', '--to', 'ops@example.com');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^tapproof: the relay did not take the mail: Invalid login: 535 authentication failed\n$/);
    assert.ok(!refused.stderr.includes('s3cret-wrong'));
    const bad = await runCli(env, 'mail', 'test', '--to', 'nobody');
    assert.deepEqual([bad.code, bad.stderr], [1, 'tapproof: --to must be an email address, got "nobody"\n']);
    const off = await runCli(storage.env, 'mail', 'test', '--to', 'ops@example.com');
    assert.deepEqual([off.code, off.stderr], [1, OFF]);
    assert.equal(smtp.received.length, 1);
  });

  test('status: the outbox per kind and status, and its latest failures', async () => {
    const empty = await runCli(storage.env, 'mail', 'status');
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.stdout, `${OFF.slice('tapproof: '.length)}the outbox is empty\n`);
    const db = openDatabase(storage.target);
    try {
      const row = (id: string, kind: 'digest' | 'invite', status: 'sent' | 'failed', error: string | null) => ({
        id,
        team_id: 'team_x',
        user_id: 'usr_x',
        kind,
        mode: null,
        subject_id: null,
        dedupe: id,
        status,
        attempts: 1,
        next_attempt_at: 0,
        last_error: error,
        created_at: 1_800_000_000_000_000,
        sent_at: null,
      });
      await db.kysely
        .insertInto('mail_outbox')
        .values([row('mail_a', 'digest', 'sent', null), row('mail_b', 'digest', 'sent', null), row('mail_c', 'invite', 'failed', '550 no such mailbox')])
        .execute();
    } finally {
      await db.close();
    }
    const result = await runCli(env, 'mail', 'status', '--json');
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), {
      email: 'on',
      counts: [
        { kind: 'digest', status: 'sent', count: 2 },
        { kind: 'invite', status: 'failed', count: 1 },
      ],
      failed: [{ id: 'mail_c', kind: 'invite', created_at: 1_800_000_000_000_000, attempts: 1, last_error: '550 no such mailbox' }],
    });
  });
});
