// Single sign-on against a real OpenID provider (oidc-provider on loopback), on both databases: the first
// sign-in creates the account in the configured team, later ones find it and follow the provider's role, an
// invited user is bound rather than duplicated, and every refusal goes back to the console with a short code
// and leaves no account and no session behind.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cliActor } from '../../src/audit/record.js';
import { newId } from '../../src/ids.js';
import * as teamsRepo from '../../src/teams/repository.js';
import { updateUser } from '../../src/users/service.js';
import { DATABASES, startServer, type TestServer } from '../kit/harness.js';
import { browse, reachCallback, signInAs, startSignIn, startTestProvider, type TestProvider } from '../kit/oidc-provider.js';
import { authCall, invited, sessionCookie } from './helpers.js';

const refusedWith = (response: Response, code: string) => {
  assert.equal(response.status, 302);
  assert.equal(response.headers.get('location'), `/console/?sign_in_error=${code}`);
  assert.equal(response.headers.getSetCookie().filter((c) => c.startsWith('tapproof_session=')).length, 0);
};

for (const kind of DATABASES) {
  describe(`single sign-on with OpenID Connect (${kind})`, () => {
    let provider: TestProvider;
    let server: TestServer;
    // The team new accounts join: its id is in the server's environment, so it is chosen before the server runs.
    const teamId = newId('team');

    const db = () => server.ctx.db.kysely;
    const usersOf = (email: string) => db().selectFrom('users').selectAll().where('email', '=', email).execute();
    const sessionsOf = (userId: string) => db().selectFrom('user_sessions').selectAll().where('user_id', '=', userId).orderBy('created_at').execute();
    const auditOf = (userId: string, operation: string) =>
      db().selectFrom('audit_events').selectAll().where('resource_id', '=', userId).where('operation', '=', operation).execute();
    const counts = async () => ({
      users: Number((await db().selectFrom('users').select(db().fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
      sessions: Number((await db().selectFrom('user_sessions').select(db().fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
    });

    before(async () => {
      provider = await startTestProvider();
      server = await startServer(kind, provider.env(teamId));
      await teamsRepo.insertTeam(db(), { id: teamId, name: 'sso', parent_id: null, created_at: server.clock.nowMicros() });
    });
    after(async () => {
      await server.close();
      await provider.close();
    });

    test('GET /auth/config offers single sign-on', async () => {
      const response = await authCall(server, 'GET', '/auth/config');
      assert.equal(response.status, 200);
      assert.equal(response.body.methods.oidc, true);
    });

    test('a provider that does not answer yet: refused, and asked again at the next sign-in', async () => {
      refusedWith((await startSignIn(server.origin)).start, 'unavailable');
      assert.equal((await db().selectFrom('sign_in_challenges').selectAll().execute()).length, 0);
      await provider.register(`${server.origin}/auth/oidc/callback`);
      const { start } = await startSignIn(server.origin);
      assert.equal(start.status, 302);
      assert.equal(new URL(start.headers.get('location')!).origin, provider.issuer);
    });

    test('the start: a code flow with PKCE to the provider, its state kept server-side and in this browser', async () => {
      const { jar, start } = await startSignIn(server.origin);
      assert.equal(start.status, 302);
      const to = new URL(start.headers.get('location')!);
      assert.equal(to.origin, provider.issuer);
      const q = to.searchParams;
      assert.equal(q.get('response_type'), 'code');
      assert.equal(q.get('client_id'), provider.clientId);
      assert.equal(q.get('redirect_uri'), `${server.origin}/auth/oidc/callback`);
      assert.equal(q.get('scope'), 'openid email');
      assert.equal(q.get('code_challenge_method'), 'S256');
      assert.match(q.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
      assert.match(q.get('nonce')!, /^[A-Za-z0-9_-]{43}$/);
      const state = q.get('state')!;
      assert.match(state, /^[A-Za-z0-9_-]{43}$/);
      const challenge = await db().selectFrom('sign_in_challenges').selectAll().where('id', '=', state).executeTakeFirstOrThrow();
      assert.equal(challenge.purpose, 'oidc');
      assert.deepEqual(Object.keys(JSON.parse(challenge.data!)).sort(), ['nonce', 'redirectUri', 'verifier']);
      assert.equal(jar.get(server.origin, 'tapproof_oidc_state'), state);
      const cookie = start.headers.getSetCookie().find((c) => c.startsWith('tapproof_oidc_state='))!;
      assert.match(cookie, /; HttpOnly/);
      assert.match(cookie, /; SameSite=Lax/);
      assert.match(cookie, /; Path=\/auth\/oidc/);
    });

    test('the first sign-in creates one user in the team with the claimed role, and a session', async () => {
      provider.accounts.set('ana-sub', { email: 'Ana@Example.com', role: 'write' });
      const before = await counts();
      const { response } = await signInAs(server.origin, 'ana-sub');
      assert.equal(response.status, 302);
      assert.equal(response.headers.get('location'), '/console/');
      const setCookie = response.headers.getSetCookie().find((c) => c.startsWith('tapproof_session='))!;
      assert.match(setCookie, /; HttpOnly/);
      assert.match(setCookie, /; SameSite=Strict/);

      const users = await usersOf('ana@example.com');
      assert.equal(users.length, 1);
      const [ana] = users;
      assert.equal(ana!.team_id, teamId);
      assert.equal(ana!.role, 'write');
      assert.equal(ana!.oidc_subject, `${provider.issuer} ana-sub`);
      assert.equal(ana!.password_hash, null);
      const sessions = await sessionsOf(ana!.id);
      assert.equal(sessions.length, 1);
      assert.equal(sessions[0]!.method, 'oidc');
      // The sign-in is the session's opening.
      assert.equal(ana!.last_sign_in_at, sessions[0]!.created_at);
      assert.deepEqual(await counts(), { users: before.users + 1, sessions: before.sessions + 1 });
      const joined = await auditOf(ana!.id, 'user.join');
      assert.equal(joined.length, 1);
      assert.deepEqual(JSON.parse(joined[0]!.changes!), { email: 'ana@example.com', role: 'write' });
      assert.equal(joined[0]!.actor_type, 'user');
      assert.equal(joined[0]!.actor_id, ana!.id);

      const as = { cookie: sessionCookie(setCookie), csrf: null };
      const session = await authCall(server, 'GET', '/auth/session', { as });
      assert.equal(session.status, 200, session.text);
      assert.deepEqual(session.body.user, { id: ana!.id, email: 'ana@example.com', role: 'write' });
      assert.deepEqual(session.body.team, { id: teamId, name: 'sso' });
      assert.equal(session.body.method, 'oidc');
      const tags = await authCall(server, 'GET', '/tags', { as, api: true });
      assert.equal(tags.status, 200, tags.text);
    });

    test('a second sign-in finds the same user', async () => {
      const before = await counts();
      const { response } = await signInAs(server.origin, 'ana-sub');
      assert.equal(response.headers.get('location'), '/console/');
      const users = await usersOf('ana@example.com');
      assert.equal(users.length, 1);
      assert.equal(users[0]!.role, 'write');
      assert.equal((await sessionsOf(users[0]!.id)).length, 2);
      assert.deepEqual(await counts(), { users: before.users, sessions: before.sessions + 1 });
      assert.equal((await auditOf(users[0]!.id, 'user.join')).length, 1);
      assert.equal((await auditOf(users[0]!.id, 'user.update')).length, 0);
    });

    test("a role changed at the provider changes the user's role at the next sign-in, once", async () => {
      provider.accounts.set('ana-sub', { email: 'ana@example.com', role: 'admin' });
      const { response } = await signInAs(server.origin, 'ana-sub');
      assert.equal(response.headers.get('location'), '/console/');
      const [ana, ...more] = await usersOf('ana@example.com');
      assert.equal(more.length, 0);
      assert.equal(ana!.role, 'admin');
      const updates = await auditOf(ana!.id, 'user.update');
      assert.equal(updates.length, 1);
      assert.deepEqual(JSON.parse(updates[0]!.changes!), { role: { from: 'write', to: 'admin' } });
      // The sessions opened with the old role end; the new one is the only one live.
      const sessions = await sessionsOf(ana!.id);
      assert.equal(sessions.length, 3);
      assert.deepEqual(
        sessions.map((s) => s.revoked_at === null),
        [false, false, true],
      );
      const as = { cookie: sessionCookie(response.headers.get('set-cookie')), csrf: null };
      assert.equal((await authCall(server, 'GET', '/auth/session', { as })).body.user.role, 'admin');

      // The same role again changes nothing.
      await signInAs(server.origin, 'ana-sub');
      assert.equal((await auditOf(ana!.id, 'user.update')).length, 1);
    });

    test('an invited user with the same email is bound to the identity, not duplicated', async () => {
      const { id } = await invited(server, teamId, 'bea@example.com', 'read');
      provider.accounts.set('bea-sub', { email: 'BEA@example.com', role: 'write' });
      const before = await counts();
      const { response } = await signInAs(server.origin, 'bea-sub');
      assert.equal(response.headers.get('location'), '/console/');
      const users = await usersOf('bea@example.com');
      assert.equal(users.length, 1);
      assert.equal(users[0]!.id, id);
      assert.equal(users[0]!.oidc_subject, `${provider.issuer} bea-sub`);
      assert.equal(users[0]!.role, 'write');
      assert.deepEqual(await counts(), { users: before.users, sessions: before.sessions + 1 });
      const bound = await auditOf(id, 'user.bind');
      assert.deepEqual(
        bound.map((e) => [e.actor_type, e.actor_id, JSON.parse(e.changes!)]),
        [['user', id, { single_sign_on: { from: false, to: true } }]],
      );
      assert.equal((await auditOf(id, 'user.update')).length, 1);
    });

    test("an email of another team's user is refused, and that user is left as it was", async () => {
      const other = await server.seedTeam({ name: 'other' });
      const { id } = await invited(server, other.teamId, 'cy@example.com', 'read');
      provider.accounts.set('cy-sub', { email: 'cy@example.com', role: 'admin' });
      const before = await counts();
      refusedWith((await signInAs(server.origin, 'cy-sub')).response, 'account');
      const [cy] = await usersOf('cy@example.com');
      assert.equal(cy!.id, id);
      assert.equal(cy!.team_id, other.teamId);
      assert.equal(cy!.oidc_subject, null);
      assert.equal(cy!.role, 'read');
      assert.deepEqual(await counts(), before);
    });

    test('a missing or unknown role claim is refused: no user, no session', async () => {
      for (const [sub, role] of [
        ['no-role', undefined],
        ['verify-role', 'verify'],
        ['odd-role', ['admin']],
      ] as const) {
        provider.accounts.set(sub, { email: `${sub}@example.com`, role });
        const before = await counts();
        refusedWith((await signInAs(server.origin, sub)).response, 'role');
        assert.deepEqual(await counts(), before);
        assert.equal((await usersOf(`${sub}@example.com`)).length, 0);
      }
    });

    test('an email the provider has not verified is refused', async () => {
      provider.accounts.set('unverified', { email: 'unverified@example.com', email_verified: false, role: 'read' });
      const before = await counts();
      refusedWith((await signInAs(server.origin, 'unverified')).response, 'email');
      assert.deepEqual(await counts(), before);
    });

    test("a disabled user is refused, and the provider's role is not applied", async () => {
      provider.accounts.set('dee-sub', { email: 'dee@example.com', role: 'read' });
      await signInAs(server.origin, 'dee-sub');
      const [dee] = await usersOf('dee@example.com');
      await updateUser(server.ctx, { teamId, actor: cliActor() }, dee!.id, { disabled: true });
      provider.accounts.set('dee-sub', { email: 'dee@example.com', role: 'admin' });
      const before = await counts();
      refusedWith((await signInAs(server.origin, 'dee-sub')).response, 'disabled');
      assert.deepEqual(await counts(), before);
      assert.equal((await usersOf('dee@example.com'))[0]!.role, 'read');
    });

    test('a callback replayed with the same state is refused the second time', async () => {
      provider.accounts.set('eve-sub', { email: 'eve@example.com', role: 'read' });
      const { jar, callback } = await reachCallback(server.origin, 'eve-sub');
      const state = callback!.searchParams.get('state')!;
      const first = await browse(jar, callback!);
      assert.equal(first.headers.get('location'), '/console/');
      // The browser's state cookie was cleared by the first answer: put it back, as an attacker holding both would.
      const again = await fetch(callback!, { redirect: 'manual', headers: { cookie: `tapproof_oidc_state=${state}` } });
      refusedWith(again, 'state');
      const [eve] = await usersOf('eve@example.com');
      assert.equal((await sessionsOf(eve!.id)).length, 1);
    });

    test('an unknown state is refused', async () => {
      const state = 'A'.repeat(43);
      const response = await fetch(`${server.origin}/auth/oidc/callback?code=whatever&state=${state}&iss=${encodeURIComponent(provider.issuer)}`, {
        redirect: 'manual',
        headers: { cookie: `tapproof_oidc_state=${state}` },
      });
      refusedWith(response, 'state');
    });

    test('a callback in a browser that did not start the sign-in is refused, and signs no one in', async () => {
      provider.accounts.set('fay-sub', { email: 'fay@example.com', role: 'read' });
      const { callback } = await reachCallback(server.origin, 'fay-sub');
      const before = await counts();
      refusedWith(await fetch(callback!, { redirect: 'manual' }), 'state');
      refusedWith(await fetch(callback!, { redirect: 'manual', headers: { cookie: `tapproof_oidc_state=${'B'.repeat(43)}` } }), 'state');
      assert.deepEqual(await counts(), before);
    });

    test('a state older than ten minutes is refused', async () => {
      provider.accounts.set('gus-sub', { email: 'gus@example.com', role: 'read' });
      const { jar, callback } = await reachCallback(server.origin, 'gus-sub');
      server.clock.advance(10 * 60 * 1000 + 1);
      const before = await counts();
      refusedWith(await browse(jar, callback!), 'state');
      assert.deepEqual(await counts(), before);
    });

    test('a code the provider did not issue is refused', async () => {
      const { jar, start } = await startSignIn(server.origin);
      const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
      const callback = new URL('/auth/oidc/callback', server.origin);
      callback.search = new URLSearchParams({ code: 'not-a-code', state, iss: provider.issuer }).toString();
      const before = await counts();
      refusedWith(await browse(jar, callback), 'exchange');
      assert.deepEqual(await counts(), before);
    });

    test("the provider's error answer (the person cancelled) is refused", async () => {
      const { jar, start } = await startSignIn(server.origin);
      const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
      const callback = new URL('/auth/oidc/callback', server.origin);
      callback.search = new URLSearchParams({ error: 'access_denied', state, iss: provider.issuer }).toString();
      refusedWith(await browse(jar, callback), 'denied');
    });
  });

  describe(`single sign-on not configured, or its provider unreachable (${kind})`, () => {
    let plain: TestServer;
    let unreachable: TestServer;

    before(async () => {
      plain = await startServer(kind);
      // A loopback port nothing listens on: discovery fails at the first sign-in, not at startup.
      unreachable = await startServer(kind, {
        TAPPROOF_OIDC_ISSUER: 'http://127.0.0.1:9',
        TAPPROOF_OIDC_CLIENT_ID: 'c',
        TAPPROOF_OIDC_CLIENT_SECRET: 's',
        TAPPROOF_OIDC_TEAM: newId('team'),
      });
    });
    after(async () => {
      await plain.close();
      await unreachable.close();
    });

    test('without an issuer: /auth/oidc/* answer 404 and GET /auth/config says so', async () => {
      const config = await authCall(plain, 'GET', '/auth/config');
      assert.equal(config.body.methods.oidc, false);
      assert.equal((await authCall(plain, 'GET', '/auth/oidc/start')).status, 404);
      assert.equal((await authCall(plain, 'GET', '/auth/oidc/callback?code=x&state=y')).status, 404);
    });

    test('a provider that cannot be reached sends the console back with a code, not a 500', async () => {
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await fetch(`${unreachable.origin}/auth/oidc/start`, { redirect: 'manual' });
        refusedWith(response, 'unavailable');
      }
      assert.equal((await unreachable.ctx.db.kysely.selectFrom('sign_in_challenges').selectAll().execute()).length, 0);
    });
  });
}
