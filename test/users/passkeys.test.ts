// Passkeys over the real server on both databases, answered by a software authenticator: registering
// with a one-time link and from a signed-in session, signing in, and every way an answer is refused
// (a forged origin, host, signature or counter, an unknown credential, a spent or expired challenge).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { CHALLENGE_MINUTES } from '../../src/users/passkeys.js';
import { SESSION_COOKIE } from '../../src/users/auth-routes/http.js';
import { inviteUser, updateUser } from '../../src/users/service.js';
import type { UserRow } from '../../src/users/repository.js';
import { SoftAuthenticator, type Forgery } from '../kit/authenticator.js';
import { DATABASES, onlyError, sharedServer, type TestServer } from '../kit/harness.js';

const CLI = { type: 'cli' as const, id: 'test', address: null, requestId: null };

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** A POST to /auth`path` with a JSON body (a string is sent as it is; undefined sends none). */
async function post(server: TestServer, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${server.origin}/auth${path}`, {
    method: 'POST',
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/** The session cookie a response sets, as a Cookie header; and the raw Set-Cookie line. */
function sessionCookie(answer: Answer): { cookie: string; line: string } {
  const line = answer.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  assert.ok(line, `no session cookie in ${answer.headers.getSetCookie().join(' | ')}`);
  return { cookie: line.split(';')[0]!, line };
}

function assertError(answer: Answer, status: number, title: string): void {
  assert.equal(answer.status, status, answer.text);
  const error = onlyError(answer);
  assert.equal(error.status, String(status));
  assert.equal(error.title, title);
}

// A passkey's failure is its own answer: a person who used no password is not told about one.
const SIGN_IN_FAILED = 'The passkey was not accepted: it is unknown, the attempt expired, or its account cannot sign in';
const LINK_INVALID = 'The link is unknown, used or expired: ask an admin for a new one';
const NOT_SIGNED_IN = 'Not signed in, or the session has ended';
const CSRF_REJECTED = 'Missing or wrong X-CSRF-Token for this session';

/** The one 422 problem of a refused registration. */
function assertNotRegistered(answer: Answer): void {
  assert.equal(answer.status, 422, answer.text);
  assert.equal(answer.body.errors.length, 1);
  assert.equal(answer.body.errors[0].title, 'Validation failed');
  assert.match(answer.body.errors[0].detail, /the passkey could not be registered/);
}

for (const kind of DATABASES) {
  describe(`passkeys (${kind})`, () => {
    const suite = sharedServer(kind);
    const db = () => suite.server.ctx.db.kysely;

    async function invite(role: 'admin' | 'write' | 'read' = 'write'): Promise<{ user: UserRow; token: string }> {
      const email = `p-${randomBytes(4).toString('hex')}@example.com`;
      const { user, link } = await inviteUser(suite.server.ctx, { teamId: suite.world.teamId, actor: CLI }, { email, role }, suite.server.origin);
      return { user, token: link.url.split('#')[1]! };
    }

    const passkeysOf = (userId: string) => db().selectFrom('user_passkeys').selectAll().where('user_id', '=', userId).execute();
    const sessionsOf = (userId: string) => db().selectFrom('user_sessions').selectAll().where('user_id', '=', userId).execute();
    const linksOf = (userId: string) => db().selectFrom('user_links').selectAll().where('user_id', '=', userId).execute();
    const passkeyAudits = (userId: string) =>
      db().selectFrom('audit_events').selectAll().where('operation', '=', 'user.add_passkey').where('resource_id', '=', userId).execute();

    /** An invited user who registered `authenticator` with their link: the answer and its session. */
    async function registered(authenticator = new SoftAuthenticator(suite.server.origin)) {
      const { user, token } = await invite();
      const options = await post(suite.server, '/passkeys/register/options', { token });
      assert.equal(options.status, 200, options.text);
      const answer = await post(suite.server, '/passkeys/register', { token, response: authenticator.register(options.body) });
      assert.equal(answer.status, 200, answer.text);
      return { user, token, authenticator, answer, cookie: sessionCookie(answer).cookie, csrf: answer.body.csrf_token as string };
    }

    async function signIn(authenticator: SoftAuthenticator, forge: Forgery = {}): Promise<Answer> {
      const options = await post(suite.server, '/passkeys/sign-in/options');
      assert.equal(options.status, 200, options.text);
      return post(suite.server, '/passkeys/sign-in', { response: authenticator.assert(options.body, forge) });
    }

    test('a link registers a passkey: a session opens, the link is spent, one passkey and one audit record', async () => {
      const { server } = suite;
      const { user, token } = await invite();
      const authenticator = new SoftAuthenticator(server.origin);
      const options = await post(server, '/passkeys/register/options', { token });
      assert.equal(options.status, 200, options.text);
      assert.deepEqual(options.body.rp, { name: 'tapproof', id: '127.0.0.1' });
      assert.equal(options.body.user.id, Buffer.from(user.id).toString('base64url'));
      assert.equal(options.body.user.name, user.email);
      assert.equal(options.body.authenticatorSelection.residentKey, 'required');
      assert.equal(options.body.authenticatorSelection.userVerification, 'preferred');
      assert.deepEqual(options.body.excludeCredentials, []);
      const challenges = await db().selectFrom('sign_in_challenges').selectAll().where('id', '=', options.body.challenge).execute();
      assert.equal(challenges.length, 1);
      assert.equal(challenges[0]!.purpose, 'passkey-register');
      assert.equal(challenges[0]!.user_id, user.id);

      const answer = await post(server, '/passkeys/register', { token, response: authenticator.register(options.body) });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body.user, { id: user.id, email: user.email, role: 'write' });
      assert.equal(answer.body.method, 'passkey');
      assert.equal(answer.body.mode, 'sandbox');
      assert.equal(typeof answer.body.csrf_token, 'string');
      const { cookie, line } = sessionCookie(answer);
      assert.match(line, /; HttpOnly/i);
      assert.match(line, /; SameSite=Strict/i);
      assert.match(line, /; Path=\//i);

      const passkeys = await passkeysOf(user.id);
      assert.equal(passkeys.length, 1);
      assert.equal(passkeys[0]!.id, authenticator.id);
      assert.equal(Number(passkeys[0]!.counter), 0);
      assert.equal(passkeys[0]!.transports, '["internal"]');
      assert.equal(passkeys[0]!.last_used_at, null);
      assert.equal((await linksOf(user.id)).length, 0);
      assert.equal((await db().selectFrom('sign_in_challenges').select('id').where('id', '=', options.body.challenge).execute()).length, 0);
      const sessions = await sessionsOf(user.id);
      assert.equal(sessions.length, 1);
      assert.equal(sessions[0]!.method, 'passkey');
      const audits = await passkeyAudits(user.id);
      assert.equal(audits.length, 1);
      assert.equal(audits[0]!.actor_type, 'user');
      assert.equal(audits[0]!.actor_id, user.id);
      assert.equal(audits[0]!.team_id, user.team_id);
      assert.equal(audits[0]!.mode, null);
      assert.deepEqual(JSON.parse(audits[0]!.changes!), { passkey: authenticator.id });

      const session = await fetch(`${server.origin}/auth/session`, { headers: { cookie } });
      assert.equal(session.status, 200);
      const read = await session.json();
      assert.equal(read.user.id, user.id);
      assert.equal(read.method, 'passkey');

      // The spent link opens nothing more: neither new options nor a registration.
      assertError(await post(server, '/passkeys/register/options', { token }), 400, LINK_INVALID);
      const other = new SoftAuthenticator(server.origin);
      const fresh = await post(server, '/passkeys/register/options', {}, { cookie, 'x-csrf-token': answer.body.csrf_token });
      assertError(await post(server, '/passkeys/register', { token, response: other.register(fresh.body) }), 400, LINK_INVALID);
      assert.equal((await passkeysOf(user.id)).length, 1);
      assert.equal((await sessionsOf(user.id)).length, 1);
      assert.equal((await passkeyAudits(user.id)).length, 1);
    });

    test('signing in with a passkey: a passkey session, the counter advanced, the cookie reads it; a replayed assertion → 401', async () => {
      const { server } = suite;
      const { user, authenticator } = await registered();
      const options = await post(server, '/passkeys/sign-in/options');
      assert.equal(options.status, 200, options.text);
      assert.equal(options.body.rpId, '127.0.0.1');
      assert.equal(options.body.userVerification, 'preferred');
      assert.deepEqual(options.body.allowCredentials ?? [], []);
      const challenge = await db().selectFrom('sign_in_challenges').selectAll().where('id', '=', options.body.challenge).executeTakeFirstOrThrow();
      assert.equal(challenge.purpose, 'passkey-sign-in');
      assert.equal(challenge.user_id, null);

      const assertion = authenticator.assert(options.body);
      const answer = await post(server, '/passkeys/sign-in', { response: assertion });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.user.id, user.id);
      assert.equal(answer.body.method, 'passkey');
      const { cookie, line } = sessionCookie(answer);
      assert.match(line, /; HttpOnly/i);
      assert.match(line, /; SameSite=Strict/i);
      const sessions = await sessionsOf(user.id);
      assert.equal(sessions.length, 2);
      assert.deepEqual(
        sessions.map((s) => s.method),
        ['passkey', 'passkey'],
      );
      const [passkey] = await passkeysOf(user.id);
      assert.equal(Number(passkey!.counter), 1);
      assert.equal(typeof Number(passkey!.last_used_at), 'number');
      assert.ok(Number(passkey!.last_used_at) > 0);

      const session = await fetch(`${server.origin}/auth/session`, { headers: { cookie } });
      assert.equal(session.status, 200);
      assert.equal((await session.json()).user.id, user.id);

      // The same answer again: its challenge is spent.
      const replay = await post(server, '/passkeys/sign-in', { response: assertion });
      assertError(replay, 401, SIGN_IN_FAILED);
      assert.equal(replay.headers.getSetCookie().length, 0);
      assert.equal((await sessionsOf(user.id)).length, 2);
      assert.equal(Number((await passkeysOf(user.id))[0]!.counter), 1);

      assert.equal((await signIn(authenticator)).status, 200);
      assert.equal(Number((await passkeysOf(user.id))[0]!.counter), 2);
      assert.equal((await sessionsOf(user.id)).length, 3);
    });

    test('an authenticator that counts nothing (counter 0) signs in again and again', async () => {
      const { user, authenticator } = await registered(new SoftAuthenticator(suite.server.origin, undefined, { counting: false }));
      for (let i = 0; i < 3; i++) assert.equal((await signIn(authenticator)).status, 200);
      assert.equal(Number((await passkeysOf(user.id))[0]!.counter), 0);
      assert.equal((await sessionsOf(user.id)).length, 4);
    });

    test('forged assertions → 401 SignInFailed, no session, the counter unchanged; each refusal spends its challenge', async () => {
      const { server } = suite;
      const { user, authenticator } = await registered();
      assert.equal((await signIn(authenticator)).status, 200);
      const stranger = new SoftAuthenticator(server.origin);
      const forgeries: [string, SoftAuthenticator, Forgery][] = [
        ['another origin', authenticator, { origin: 'http://evil.example' }],
        ['another port of the host', authenticator, { origin: 'http://127.0.0.1:1' }],
        ['another RP ID', authenticator, { rpId: 'evil.example' }],
        ['a bad signature', authenticator, { badSignature: true }],
        ['the same counter', authenticator, { signCount: 1 }],
        ['a lower counter', authenticator, { signCount: 0 }],
        ['a registration type', authenticator, { type: 'webauthn.create' }],
        ['another user handle', authenticator, { userHandle: Buffer.from('usr_someone_else').toString('base64url') }],
        ['an unknown credential', stranger, {}],
        ['an unknown credential id on a known key', authenticator, { credentialId: randomBytes(16).toString('base64url') }],
        ['an unknown challenge', authenticator, { challenge: randomBytes(32).toString('base64url') }],
      ];
      for (const [what, by, forge] of forgeries) {
        const options = await post(server, '/passkeys/sign-in/options');
        const response = by.assert(options.body, forge);
        const answer = await post(server, '/passkeys/sign-in', { response });
        assertError(answer, 401, SIGN_IN_FAILED);
        assert.equal(answer.headers.getSetCookie().length, 0, what);
        // The challenge went with the refusal: the genuine answer to it is refused too.
        if (forge.challenge === undefined) {
          const genuine = authenticator.assert(options.body);
          assertError(await post(server, '/passkeys/sign-in', { response: genuine }), 401, SIGN_IN_FAILED);
        }
      }
      assert.equal((await sessionsOf(user.id)).length, 2);
      // The counter advanced only with the one sign-in that passed.
      assert.equal(Number((await passkeysOf(user.id))[0]!.counter), 1);
      // A registration's challenge is no sign-in's.
      const { token } = await invite();
      const registration = await post(server, '/passkeys/register/options', { token });
      assertError(await post(server, '/passkeys/sign-in', { response: authenticator.assert(registration.body) }), 401, SIGN_IN_FAILED);
      assert.equal((await sessionsOf(user.id)).length, 2);
      // The authenticator itself is still good: its counter is past every one refused.
      assert.equal((await signIn(authenticator)).status, 200);
      assert.equal((await sessionsOf(user.id)).length, 3);
    });

    test('a disabled user cannot sign in with their passkey → 401', async () => {
      const { server } = suite;
      const { user, authenticator } = await registered();
      await updateUser(server.ctx, { teamId: suite.world.teamId, actor: CLI }, user.id, { disabled: true });
      const before = (await sessionsOf(user.id)).length;
      const answer = await signIn(authenticator);
      assertError(answer, 401, SIGN_IN_FAILED);
      assert.equal(answer.headers.getSetCookie().length, 0);
      assert.equal((await sessionsOf(user.id)).length, before);
      assert.equal(Number((await passkeysOf(user.id))[0]!.counter), 0);
    });

    test('a signed-in user adds a second passkey with the CSRF token; without it → 403; both sign in', async () => {
      const { server } = suite;
      const { user, authenticator, cookie, csrf } = await registered();
      const second = new SoftAuthenticator(server.origin);

      assertError(await post(server, '/passkeys/register/options', {}, { cookie }), 403, CSRF_REJECTED);
      assertError(await post(server, '/passkeys/register/options', {}, { cookie, 'x-csrf-token': 'x'.repeat(43) }), 403, CSRF_REJECTED);
      const options = await post(server, '/passkeys/register/options', undefined, { cookie, 'x-csrf-token': csrf });
      assert.equal(options.status, 200, options.text);
      assert.deepEqual(
        options.body.excludeCredentials.map((c: { id: string }) => c.id),
        [authenticator.id],
      );
      assert.deepEqual(options.body.excludeCredentials[0].transports, ['internal']);

      const response = second.register(options.body);
      assertError(await post(server, '/passkeys/register', { response }, { cookie }), 403, CSRF_REJECTED);
      assert.equal((await passkeysOf(user.id)).length, 1);
      // The refused request never reached the challenge: the same answer with the token passes.
      const answer = await post(server, '/passkeys/register', { response }, { cookie, 'x-csrf-token': csrf });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body, { passkeys: 2 });
      assert.equal(answer.headers.getSetCookie().length, 0);
      assert.deepEqual((await passkeysOf(user.id)).map((p) => p.id).sort(), [authenticator.id, second.id].sort());
      assert.equal((await passkeyAudits(user.id)).length, 2);
      assert.equal((await sessionsOf(user.id)).length, 1);

      // The same credential again (a new challenge) is refused, not replaced.
      const again = await post(server, '/passkeys/register/options', undefined, { cookie, 'x-csrf-token': csrf });
      assertNotRegistered(await post(server, '/passkeys/register', { response: second.register(again.body) }, { cookie, 'x-csrf-token': csrf }));
      assert.equal((await passkeysOf(user.id)).length, 2);
      assert.equal((await passkeyAudits(user.id)).length, 2);

      assert.equal((await signIn(authenticator)).status, 200);
      assert.equal((await signIn(second)).status, 200);
      assert.equal((await sessionsOf(user.id)).length, 3);
    });

    test('registration needs a live link or a signed-in session', async () => {
      const { server } = suite;
      assertError(await post(server, '/passkeys/register/options'), 401, NOT_SIGNED_IN);
      assertError(await post(server, '/passkeys/register/options', {}), 401, NOT_SIGNED_IN);
      assertError(await post(server, '/passkeys/register/options', {}, { cookie: `${SESSION_COOKIE}=${'a'.repeat(43)}` }), 401, NOT_SIGNED_IN);
      assertError(await post(server, '/passkeys/register/options', { token: 'a'.repeat(43) }), 400, LINK_INVALID);
      assertError(await post(server, '/passkeys/register/options', { token: 'short' }), 400, LINK_INVALID);

      // An answer to real options, sent with neither the link nor a session.
      const { user, token } = await invite();
      const options = await post(server, '/passkeys/register/options', { token });
      const response = new SoftAuthenticator(server.origin).register(options.body);
      assertError(await post(server, '/passkeys/register', { response }), 401, NOT_SIGNED_IN);
      assertError(await post(server, '/passkeys/register', { token: 'b'.repeat(43), response }), 400, LINK_INVALID);
      assert.equal((await passkeysOf(user.id)).length, 0);
      assert.equal((await linksOf(user.id)).length, 1);
      // Neither refusal spent the challenge: the link's own request still passes.
      assert.equal((await post(server, '/passkeys/register', { token, response })).status, 200);

      // A session ended by sign-out adds nothing.
      const { cookie, csrf } = await registered();
      assert.equal((await post(server, '/sign-out', undefined, { cookie, 'x-csrf-token': csrf })).status, 204);
      assertError(await post(server, '/passkeys/register/options', {}, { cookie, 'x-csrf-token': csrf }), 401, NOT_SIGNED_IN);
    });

    test('a registration answering another user, origin or host is refused (422); the link stays usable', async () => {
      const { server } = suite;
      const { user, token } = await invite();
      const other = await invite();
      const authenticator = new SoftAuthenticator(server.origin);
      const refusals: [string, () => Promise<unknown>][] = [
        [
          'another origin',
          async () => authenticator.register((await post(server, '/passkeys/register/options', { token })).body, { origin: 'http://evil.example' }),
        ],
        ['another RP ID', async () => authenticator.register((await post(server, '/passkeys/register/options', { token })).body, { rpId: 'evil.example' })],
        ['a sign-in type', async () => authenticator.register((await post(server, '/passkeys/register/options', { token })).body, { type: 'webauthn.get' })],
        ["another user's challenge", async () => authenticator.register((await post(server, '/passkeys/register/options', { token: other.token })).body)],
        ['a sign-in challenge', async () => authenticator.register({ ...(await post(server, '/passkeys/sign-in/options')).body, user: { id: 'x' } })],
        [
          'an unknown challenge',
          async () => authenticator.register((await post(server, '/passkeys/register/options', { token })).body, { challenge: 'c'.repeat(43) }),
        ],
      ];
      for (const [what, make] of refusals) {
        const answer = await post(server, '/passkeys/register', { token, response: await make() });
        assertNotRegistered(answer);
        assert.equal(answer.headers.getSetCookie().length, 0, what);
      }
      assert.equal((await passkeysOf(user.id)).length, 0);
      assert.equal((await passkeysOf(other.user.id)).length, 0);
      assert.equal((await sessionsOf(user.id)).length, 0);
      assert.equal((await passkeyAudits(user.id)).length, 0);
      assert.equal((await linksOf(user.id)).length, 1);

      const options = await post(server, '/passkeys/register/options', { token });
      assert.equal((await post(server, '/passkeys/register', { token, response: authenticator.register(options.body) })).status, 200);
      assert.equal((await passkeysOf(user.id)).length, 1);
      assert.equal((await passkeyAudits(user.id)).length, 1);
      // Answering the other user's challenge left their link alone.
      assert.equal((await linksOf(other.user.id)).length, 1);
    });

    test('malformed bodies → 400 or 422, never 500', async () => {
      const { server } = suite;
      const { authenticator } = await registered();
      assertError(await post(server, '/passkeys/sign-in', '[1]'), 400, 'Request body is malformed');
      assertError(await post(server, '/passkeys/sign-in', '{'), 400, 'Request body is not valid JSON');
      assertError(await post(server, '/passkeys/sign-in'), 400, 'Request body is malformed');
      assertError(await post(server, '/passkeys/register', '"text"'), 400, 'Request body is malformed');
      assertError(await post(server, '/passkeys/register/options', '[]'), 400, 'Request body is malformed');

      const missing = await post(server, '/passkeys/sign-in', {});
      assert.equal(missing.status, 422, missing.text);
      assert.deepEqual(
        missing.body.errors.map((e: { detail: string }) => e.detail),
        ['response must be the credential as a JSON object'],
      );
      const fields = await post(server, '/passkeys/sign-in', { response: { id: 1, type: 'public-key', response: { clientDataJSON: 'x', signature: 2 } } });
      assert.equal(fields.status, 422, fields.text);
      assert.deepEqual(
        fields.body.errors.map((e: { detail: string }) => e.detail),
        [
          'response.id must be a string',
          'response.rawId must be a string',
          'response.response.authenticatorData must be a string',
          'response.response.signature must be a string',
        ],
      );
      const inner = await post(server, '/passkeys/register', { token: 'a'.repeat(43), response: { id: 'a', rawId: 'a', type: 'public-key', response: [] } });
      assert.equal(inner.status, 422, inner.text);
      assert.equal(inner.body.errors.length, 1);
      assert.equal(inner.body.errors[0].detail, 'response.response must be an object');
      const token = await post(server, '/passkeys/register/options', { token: 5 });
      assert.equal(token.status, 422, token.text);
      assert.equal(token.body.errors[0].detail, 'token must be a string');
      const transports = await post(server, '/passkeys/register', {
        response: { id: 'a', rawId: 'a', type: 'public-key', response: { clientDataJSON: 'a', attestationObject: 'a', transports: 'usb' } },
      });
      assert.equal(transports.status, 422, transports.text);
      assert.equal(transports.body.errors[0].detail, 'response.response.transports must be a list of strings');

      // Well-formed JSON whose contents are garbage is a refused sign-in, not a server error.
      const options = async () => (await post(server, '/passkeys/sign-in/options')).body;
      const good = () => options().then((o) => authenticator.assert(o, { signCount: authenticator.signCount + 100 }));
      const garbage: [string, (r: any) => unknown][] = [
        ['clientDataJSON not JSON', (r) => ({ ...r, response: { ...r.response, clientDataJSON: 'bm90IGpzb24' } })],
        ['clientDataJSON not base64url', (r) => ({ ...r, response: { ...r.response, clientDataJSON: '!!!' } })],
        ['authenticatorData short', (r) => ({ ...r, response: { ...r.response, authenticatorData: 'AAAA' } })],
        ['signature not DER', (r) => ({ ...r, response: { ...r.response, signature: 'AAAA' } })],
        ['signature empty', (r) => ({ ...r, response: { ...r.response, signature: '' } })],
        ['id and rawId differ', (r) => ({ ...r, rawId: 'AAAA' })],
        ['another type', (r) => ({ ...r, type: 'password' })],
        ['a userHandle not base64url', (r) => ({ ...r, response: { ...r.response, userHandle: 'not base64url!' } })],
      ];
      for (const [what, spoil] of garbage) {
        const answer = await post(server, '/passkeys/sign-in', { response: spoil(await good()) });
        assert.equal(answer.status, 401, `${what}: ${answer.text}`);
        assert.equal(onlyError(answer).title, SIGN_IN_FAILED);
      }

      // Without TAPPROOF_PUBLIC_URL the relying party is the request's host: one that makes no URL is refused.
      const badHost = await new Promise<number | undefined>((resolve, reject) => {
        const url = new URL(server.origin);
        request({ host: url.hostname, port: url.port, method: 'POST', path: '/auth/passkeys/sign-in/options', headers: { host: 'a b' } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        })
          .on('error', reject)
          .end();
      });
      assert.equal(badHost, 422);

      // And a registration whose attestation is garbage is a refused registration.
      const { user, token: link } = await invite();
      for (const attestationObject of ['AAAA', '', Buffer.from('not cbor at all').toString('base64url')]) {
        const registration = await post(server, '/passkeys/register/options', { token: link });
        const response = authenticator.register(registration.body);
        assertNotRegistered(
          await post(server, '/passkeys/register', { token: link, response: { ...response, response: { ...response.response, attestationObject } } }),
        );
      }
      assert.equal((await passkeysOf(user.id)).length, 0);
    });

    test('an expired challenge is refused: a sign-in → 401, a registration → 422, nothing stored', async () => {
      const { server } = suite;
      const { user: known, authenticator } = await registered();
      const { user, token } = await invite();
      const signInOptions = (await post(server, '/passkeys/sign-in/options')).body;
      const registerOptions = (await post(server, '/passkeys/register/options', { token })).body;
      const sessions = (await sessionsOf(known.id)).length;
      server.clock.advance(CHALLENGE_MINUTES * 60_000 + 1000);

      assertError(await post(server, '/passkeys/sign-in', { response: authenticator.assert(signInOptions) }), 401, SIGN_IN_FAILED);
      assert.equal((await sessionsOf(known.id)).length, sessions);
      assert.equal(Number((await passkeysOf(known.id))[0]!.counter), 0);

      const fresh = new SoftAuthenticator(server.origin);
      assertNotRegistered(await post(server, '/passkeys/register', { token, response: fresh.register(registerOptions) }));
      assert.equal((await passkeysOf(user.id)).length, 0);
      assert.equal((await linksOf(user.id)).length, 1);
      assert.equal((await passkeyAudits(user.id)).length, 0);
      assert.equal((await sessionsOf(user.id)).length, 0);
      // Spending prunes what has expired: neither challenge is left.
      const left = await db().selectFrom('sign_in_challenges').select('id').where('id', 'in', [signInOptions.challenge, registerOptions.challenge]).execute();
      assert.equal(left.length, 0);

      // New options within the five minutes pass.
      assert.equal((await signIn(authenticator)).status, 200);
      const again = (await post(server, '/passkeys/register/options', { token })).body;
      assert.equal((await post(server, '/passkeys/register', { token, response: fresh.register(again) })).status, 200);
      assert.equal((await passkeysOf(user.id)).length, 1);
    });
  });
}
