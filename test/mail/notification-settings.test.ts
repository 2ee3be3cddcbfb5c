// GET and PATCH /profile/notifications on both engines: a person's own choices, all off until chosen;
// refused to every key (a key is nobody) and without the session's CSRF token; bad documents 400, bad
// values 422 naming each field; and, on a server without SMTP, nothing can be turned on, with the reason.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES, call, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { assertError, assertValidation } from '../kit/assertions.js';
import { authCall, invited, redeemed, type Browserish } from '../users/helpers.js';

const OFF = 'email is off on this server: its operator has not set TAPPROOF_SMTP_URL (docs/email.md)';
const settings = (attributes: unknown) => ({ data: { type: 'notification-settings', attributes } });

for (const kind of DATABASES) {
  for (const smtp of [true, false]) {
    describe(`notification settings (${kind}, ${smtp ? 'SMTP set' : 'no SMTP'})`, () => {
      let server: TestServer;
      let world: SeededTeam;
      let person: { id: string; session: Browserish };
      const as = (method: string, body?: unknown, csrf?: string | null) =>
        authCall(server, method, '/profile/notifications', { as: person.session, api: true, body, csrf });

      before(async () => {
        // Nothing listens on port 9: no test here sends a mail.
        server = await startServer(kind, smtp ? { TAPPROOF_SMTP_URL: 'smtp://127.0.0.1:9', TAPPROOF_PUBLIC_URL: 'https://console.example.com' } : {});
        world = await server.seedTeam();
        const made = await invited(server, world.teamId, `p-${kind}-${smtp}@example.com`, 'read');
        person = { id: made.id, session: await redeemed(server, made.token) };
      });
      after(() => server.close());

      test('all off until chosen; the reason when email is off', async () => {
        const read = await as('GET');
        assert.equal(read.status, 200, read.text);
        assert.deepEqual(read.body.data, {
          type: 'notification-settings',
          id: person.id,
          attributes: { case_opened: false, daily_digest: false, sandbox: false, email_off: smtp ? null : OFF, digest_hour: smtp ? 7 : null },
        });
      });

      test(
        smtp
          ? 'choices are kept, one at a time, and the digest remembers when it was turned on'
          : 'nothing can be turned on, naming each field; sandbox alone may be',
        async () => {
          if (!smtp) {
            assertValidation(await as('PATCH', settings({ case_opened: true, daily_digest: true })), [
              '/data/attributes/case_opened',
              '/data/attributes/daily_digest',
            ]);
            const sandbox = await as('PATCH', settings({ sandbox: true, case_opened: false }));
            assert.equal(sandbox.status, 200, sandbox.text);
            assert.equal(sandbox.body.data.attributes.sandbox, true);
            return;
          }
          const first = await as('PATCH', settings({ daily_digest: true }));
          assert.equal(first.status, 200, first.text);
          const row = () => server.ctx.db.kysely.selectFrom('notification_settings').selectAll().where('user_id', '=', person.id).executeTakeFirstOrThrow();
          const from = (await row()).digest_from;
          assert.equal(typeof from, 'number');
          server.clock.advance(1000);
          const second = await as('PATCH', settings({ case_opened: true, sandbox: true }));
          assert.deepEqual(second.body.data.attributes, { case_opened: true, daily_digest: true, sandbox: true, email_off: null, digest_hour: 7 });
          assert.equal((await row()).digest_from, from);
          await as('PATCH', settings({ daily_digest: false }));
          assert.equal((await row()).digest_from, null);
          assert.deepEqual((await as('GET')).body.data.attributes, { case_opened: true, daily_digest: false, sandbox: true, email_off: null, digest_hour: 7 });
        },
      );

      test('bad documents are 400, bad values 422 naming each field; nothing changes', async () => {
        const before = (await as('GET')).body.data.attributes;
        for (const body of ['{', { data: [] }, { data: { type: 'users', attributes: {} } }, { data: { type: 'notification-settings' } }]) {
          const response = await as('PATCH', body);
          assert.equal(response.status, 400, `${JSON.stringify(body)} ${response.text}`);
        }
        assertError(await as('PATCH', { data: { type: 'notification-settings', id: 'usr_other', attributes: {} } }), 400, { detail: false });
        assertValidation(await as('PATCH', settings({ case_opened: 'yes', sandbox: 1, weekly: true })), [
          '/data/attributes/case_opened',
          '/data/attributes/sandbox',
          '/data/attributes/weekly',
        ]);
        assert.deepEqual((await as('GET')).body.data.attributes, before);
      });

      test('a key of any mode or role is refused: a key has no profile; a change needs the CSRF token', async () => {
        for (const key of [world.production.key, world.sandbox.key]) {
          for (const [method, body] of [
            ['GET', undefined],
            ['PATCH', settings({ sandbox: true })],
          ] as const) {
            const response = await call(server, method, '/profile/notifications', { key, body });
            assertError(response, 403, { detail: true });
            assert.equal(response.body.errors[0].title, 'Only a person signed in to the console has this');
          }
        }
        const noCsrf = await as('PATCH', settings({ sandbox: false }), null);
        assert.equal(noCsrf.status, 403, noCsrf.text);
        assert.equal((await call(server, 'GET', '/profile/notifications')).status, 401);
      });
    });
  }
}
