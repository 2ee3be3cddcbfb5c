// Signing in to the console with a password, on both databases: the one-time link that sets it, the
// session cookie's flags, one answer for every failure (no enumeration), throttling per account and per
// address, CSRF on every change made with the cookie, idle and absolute expiry, sign-out and revocation.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { DATABASES, randomIp, sharedServer, startServer, type TestServer } from '../kit/harness.js';
import { ACCOUNT_ADDRESS_FAILURES, ADDRESS_FAILURES } from '../../src/users/throttle.js';
import { PASSWORD, authCall, invited, redeemed, sessionCookie, signedIn, type Browserish } from './helpers.js';

const tagsBody = (url: string) => ({ data: [{ type: 'tags', attributes: { protocol: 'ntag_424_dna', url } }] });
/** The password the first test sets. */
const FIRST = 'a first passphrase';
const sessions = (server: TestServer, userId: string) => server.ctx.db.kysely.selectFrom('user_sessions').selectAll().where('user_id', '=', userId).execute();

for (const kind of DATABASES) {
  describe(`console sign-in with a password (${kind})`, () => {
    const suite = sharedServer(kind, { TAPPROOF_TRUST_PROXY: 'true', TAPPROOF_SESSION_IDLE_MINUTES: '30', TAPPROOF_SESSION_MAX_HOURS: '2' });
    let teamId: string;
    let ana: { id: string; token: string };
    const email = `ana-${kind}@example.com`;

    before(async () => {
      teamId = suite.world.teamId;
      ana = await invited(suite.server, teamId, email.toUpperCase(), 'admin');
    });

    test('the link names the invite; a short password is refused and spends nothing', async () => {
      const { server } = suite;
      const inspected = await authCall(server, 'POST', '/auth/links/inspect', { body: { token: ana.token } });
      assert.equal(inspected.status, 200, inspected.text);
      assert.deepEqual(
        { ...inspected.body, expires_at: undefined },
        { email, role: 'admin', team: { id: teamId, name: 'team' }, purpose: 'invite', expires_at: undefined },
      );
      for (const password of ['x'.repeat(11), 'x'.repeat(257)]) {
        const refused = await authCall(server, 'POST', '/auth/links/password', { body: { token: ana.token, password } });
        assert.equal(refused.status, 422, refused.text);
        assert.equal(refused.body.errors[0].source.pointer, '/password');
      }
      assert.equal((await authCall(server, 'POST', '/auth/links/inspect', { body: { token: ana.token } })).status, 200);
    });

    test('setting the password signs in: an HttpOnly SameSite=Strict cookie (not Secure on loopback), a session row, the link spent', async () => {
      const { server } = suite;
      const response = await authCall(server, 'POST', '/auth/links/password', { body: { token: ana.token, password: FIRST } });
      assert.equal(response.status, 200, response.text);
      assert.match(response.setCookie!, /^tapproof_session=[A-Za-z0-9_-]{43}; Max-Age=7200; Path=\/; HttpOnly; SameSite=Strict$/);
      assert.deepEqual(response.body.user, { id: ana.id, email, role: 'admin' });
      assert.equal(response.body.mode, 'sandbox');
      assert.equal(response.body.method, 'password');
      const rows = await sessions(server, ana.id);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.method, 'password');
      // The cookie's token is not what the database keeps.
      assert.ok(!response.setCookie!.includes(rows[0]!.token_hash));
      const again = await authCall(server, 'POST', '/auth/links/password', { body: { token: ana.token, password: PASSWORD } });
      assert.equal(again.status, 400);
      assert.equal(again.body.errors[0].title, 'The link is unknown, used or expired: ask an admin for a new one');
      // The first password stands.
      await signedIn(server, email, FIRST, randomIp());
    });

    test('a wrong password, an unknown address and a disabled account get the same 401; nothing is opened', async () => {
      const { server } = suite;
      const bea = await invited(server, teamId, `bea-${kind}@example.com`, 'read');
      await redeemed(server, bea.token);
      await server.ctx.db.kysely.updateTable('users').set({ disabled_at: 1 }).where('id', '=', bea.id).execute();
      const before = (await server.ctx.db.kysely.selectFrom('user_sessions').select('id').execute()).length;
      const answers = [];
      for (const [who, password] of [
        [email, 'wrong password, long enough'],
        [`nobody-${kind}@example.com`, PASSWORD],
        [`bea-${kind}@example.com`, PASSWORD],
      ]) {
        const response = await authCall(server, 'POST', '/auth/sign-in', { body: { email: who, password }, headers: { 'x-forwarded-for': randomIp() } });
        answers.push([response.status, response.text, response.setCookie]);
      }
      assert.deepEqual(answers, Array(3).fill([401, '{"errors":[{"status":"401","title":"Wrong email or password, or the account cannot sign in"}]}', null]));
      assert.equal((await server.ctx.db.kysely.selectFrom('user_sessions').select('id').execute()).length, before);
    });

    test('malformed bodies are 400 or 422, never 500', async () => {
      const { server } = suite;
      for (const [body, status] of [
        ['{', 400],
        ['[]', 400],
        ['"x"', 400],
        [{ email: 1, password: PASSWORD }, 422],
        [{ email }, 422],
        [{}, 422],
      ] as const) {
        const response = await authCall(server, 'POST', '/auth/sign-in', { body, headers: { 'x-forwarded-for': randomIp() } });
        assert.equal(response.status, status, `${JSON.stringify(body)}: ${response.text}`);
      }
      const inspected = await authCall(server, 'POST', '/auth/links/inspect', { body: { token: 'not-a-token' } });
      assert.equal(inspected.status, 400);
    });

    test(`throttled after ${ACCOUNT_ADDRESS_FAILURES} failures per account from one address, for an unknown account alike; Retry-After says how long`, async () => {
      const { server } = suite;
      // The failures of the tests above have aged out.
      server.clock.advance(15 * 60_000);
      const address = randomIp();
      for (const who of [email, `ghost-${kind}@example.com`]) {
        const statuses = [];
        for (let i = 0; i <= ACCOUNT_ADDRESS_FAILURES; i++) {
          const response = await authCall(server, 'POST', '/auth/sign-in', {
            body: { email: who, password: 'not it at all!' },
            headers: { 'x-forwarded-for': address },
          });
          statuses.push(response.status);
          if (response.status === 429) {
            // Every 429 of the server is the same plain text; Retry-After carries the wait.
            assert.equal(response.text, 'Too Many Requests');
            const wait = Number(response.headers.get('retry-after'));
            assert.ok(wait > 14 * 60 && wait <= 15 * 60, String(wait));
          }
        }
        assert.deepEqual(statuses, [...Array(ACCOUNT_ADDRESS_FAILURES).fill(401), 429]);
      }
      // Even the right password waits: a guesser cannot tell it found it.
      const right = await authCall(server, 'POST', '/auth/sign-in', { body: { email, password: FIRST }, headers: { 'x-forwarded-for': address } });
      assert.equal(right.status, 429);
      // Fifteen minutes later the account may try again from there.
      server.clock.advance(15 * 60_000);
      await signedIn(server, email, FIRST, address);
    });

    test(`throttled after ${ADDRESS_FAILURES} failures from one address, over any accounts`, async () => {
      const { server } = suite;
      const address = randomIp();
      const statuses = [];
      for (let i = 0; i <= ADDRESS_FAILURES; i++) {
        const response = await authCall(server, 'POST', '/auth/sign-in', {
          body: { email: `spray-${i}-${kind}@example.com`, password: 'not it at all!' },
          headers: { 'x-forwarded-for': address },
        });
        statuses.push(response.status);
      }
      assert.deepEqual(statuses, [...Array(ADDRESS_FAILURES).fill(401), 429]);
      // Another address is not held back.
      await signedIn(server, email, FIRST, randomIp());
    });

    test('the session reads the API as its user: its team, its world, its role; a change needs the CSRF token', async () => {
      const { server } = suite;
      const me = await signedIn(server, email, FIRST, randomIp());
      const session = await authCall(server, 'GET', '/auth/session', { as: me });
      assert.equal(session.status, 200);
      assert.equal(session.headers.get('cache-control'), 'no-store');
      assert.equal(session.body.csrf_token, me.csrf);
      const team = await authCall(server, 'GET', '/teams/current', { as: me, api: true });
      assert.equal(team.status, 200, team.text);
      assert.equal(team.body.data.id, teamId);
      for (const csrf of [null, '', 'x'.repeat(43), me.csrf!.slice(1)]) {
        const refused = await authCall(server, 'POST', '/tags', { as: me, csrf, api: true, body: tagsBody(`https://csrf.example/${kind}`) });
        assert.equal(refused.status, 403, refused.text);
        assert.equal(refused.body.errors[0].title, 'Missing or wrong X-CSRF-Token for this session');
      }
      assert.equal((await server.ctx.db.kysely.selectFrom('tags').select('id').where('url', '=', `https://csrf.example/${kind}`).execute()).length, 0);
      const made = await authCall(server, 'POST', '/tags', { as: me, api: true, body: tagsBody(`https://csrf.example/${kind}`) });
      assert.equal(made.status, 201, made.text);
      // The audit log names the person, not a key.
      const record = await server.ctx.db.kysely
        .selectFrom('audit_events')
        .selectAll()
        .where('resource_id', '=', made.body.data[0].id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([record.actor_type, record.actor_id, record.operation], ['user', ana.id, 'tag.create']);
      // A bearer key, when sent, is the only credential read: a cookie beside it changes nothing.
      const keyed = await authCall(server, 'GET', '/keys/current', { as: me, api: true, headers: { authorization: `Bearer ${suite.world.production.key}` } });
      assert.equal(keyed.body.data.attributes.mode, 'production');
      const self = await authCall(server, 'GET', '/keys/current', { as: me, api: true });
      assert.equal(self.status, 404);
    });

    test('switching the world: production reads production, and the switch needs the CSRF token', async () => {
      const { server } = suite;
      const me = await signedIn(server, email, FIRST, randomIp());
      assert.equal((await authCall(server, 'POST', '/auth/mode', { as: me, csrf: null, body: { mode: 'production' } })).status, 403);
      assert.equal((await authCall(server, 'POST', '/auth/mode', { as: me, body: { mode: 'staging' } })).status, 422);
      const switched = await authCall(server, 'POST', '/auth/mode', { as: me, body: { mode: 'production' } });
      assert.equal(switched.body.mode, 'production');
      const keys = await authCall(server, 'GET', '/keys', { as: me, api: true });
      assert.deepEqual(
        keys.body.data.map((k: any) => k.id),
        [suite.world.production.id],
      );
    });

    test('a role is enforced as a key role is: a read user reads, and is refused a change with 403 naming the user', async () => {
      const { server } = suite;
      const cy = await invited(server, teamId, `cy-${kind}@example.com`, 'read');
      const me = await redeemed(server, cy.token);
      assert.equal((await authCall(server, 'GET', '/tags', { as: me, api: true })).status, 200);
      const refused = await authCall(server, 'POST', '/tags', { as: me, api: true, body: tagsBody(`https://read.example/${kind}`) });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.errors[0].detail, "this user's role is read; this request needs a user of role admin or write");
      assert.equal((await authCall(server, 'GET', '/users', { as: me, api: true })).status, 403);
    });

    test('idle: a session unused for the idle time has ended; absolute: it ends at its maximum however busy', async () => {
      const { server } = suite;
      const idle = await signedIn(server, email, FIRST, randomIp());
      server.clock.advance(29 * 60_000);
      assert.equal((await authCall(server, 'GET', '/auth/session', { as: idle })).status, 200);
      server.clock.advance(29 * 60_000);
      // Used 29 minutes ago: still live; then 30 minutes of nothing.
      assert.equal((await authCall(server, 'GET', '/tags', { as: idle, api: true })).status, 200);
      server.clock.advance(30 * 60_000);
      const ended = await authCall(server, 'GET', '/tags', { as: idle, api: true });
      assert.equal(ended.status, 401);
      assert.equal(ended.body.errors[0].title, 'Not signed in, or the session has ended');
      assert.equal((await authCall(server, 'GET', '/auth/session', { as: idle })).status, 204);

      const busy = await signedIn(server, email, FIRST, randomIp());
      for (let minutes = 20; minutes <= 100; minutes += 20) {
        server.clock.advance(20 * 60_000);
        assert.equal((await authCall(server, 'GET', '/tags', { as: busy, api: true })).status, 200, `after ${minutes} minutes`);
      }
      // Used 20 minutes ago, but two hours old.
      server.clock.advance(20 * 60_000);
      assert.equal((await authCall(server, 'GET', '/tags', { as: busy, api: true })).status, 401);
    });

    test('sign-out ends the session on the server (a copied cookie stops working) and needs the CSRF token', async () => {
      const { server } = suite;
      const me = await signedIn(server, email, FIRST, randomIp());
      assert.equal((await authCall(server, 'POST', '/auth/sign-out', { as: me, csrf: null, body: {} })).status, 403);
      assert.equal((await authCall(server, 'GET', '/auth/session', { as: me })).status, 200);
      const out = await authCall(server, 'POST', '/auth/sign-out', { as: me, body: {} });
      assert.equal(out.status, 204);
      assert.match(out.setCookie!, /^tapproof_session=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict$/);
      assert.equal((await authCall(server, 'GET', '/tags', { as: me, api: true })).status, 401);
    });

    test('GET /auth/config offers what the deployment allows: no pasted key in production unless asked for', async () => {
      assert.deepEqual((await authCall(suite.server, 'GET', '/auth/config')).body, { methods: { password: true, passkey: true, oidc: false, key: true } });
      const production = await startServer(kind, { NODE_ENV: 'production' });
      try {
        assert.deepEqual((await authCall(production, 'GET', '/auth/config')).body.methods.key, false);
      } finally {
        await production.close();
      }
    });

    test('a forged or garbled cookie is 401, never 500', async () => {
      const { server } = suite;
      for (const cookie of ['tapproof_session=', 'tapproof_session=%zz', `tapproof_session=${'A'.repeat(43)}`, 'tapproof_session=a; tapproof_session=b']) {
        const response = await authCall(server, 'GET', '/tags', { as: { cookie, csrf: null }, api: true });
        assert.equal(response.status, 401, `${cookie}: ${response.text}`);
      }
      assert.equal(sessionCookie('tapproof_session=abc; Path=/'), 'tapproof_session=abc');
    });
  });
}

export type { Browserish };
