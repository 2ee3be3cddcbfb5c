// What a new password may be, on both databases: each refused kind is a 422 naming its rule, the link's
// token is checked before the password (and before scrypt), an over-long password at sign-in is the one
// sign-in failure, and the /auth routes' 415 names the media type they read.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PASSWORD_MAX } from '../../src/users/passwords.js';
import { DATABASES, randomIp, sharedServer } from '../kit/harness.js';
import { PASSWORD, authCall, invited, signedIn } from './helpers.js';

const CONTROLS =
  'password must not contain control characters (U+0000 to U+001F, U+007F to U+009F) or bidirectional formatting characters (U+202A to U+202E, U+2066 to U+2069)';

const REFUSED: [string, string, string][] = [
  ['twelve spaces', ' '.repeat(12), 'password must not be only whitespace'],
  ['whitespace of several kinds', ' \u00a0\u3000 \u2003 \u00a0\u3000 \u2003  ', 'password must not be only whitespace'],
  ['twelve NULs', '\u0000'.repeat(12), CONTROLS],
  ['a tab', 'a long\tpassphrase', CONTROLS],
  ['a C1 control', 'a long\u0085passphrase', CONTROLS],
  ['a right-to-left override', 'a long\u202epassphrase', CONTROLS],
  ['a bidirectional isolate', 'a long\u2066passphrase', CONTROLS],
  ['a lone surrogate', 'a long passphrase \ud800', 'password must be well-formed Unicode (no lone UTF-16 surrogates)'],
  ['one character repeated', 'aaaaaaaaaaaa', 'password must not be one character repeated'],
  ['one emoji repeated', '🔑'.repeat(12), 'password must not be one character repeated'],
  ['a common password', 'password1234', 'password must not be a commonly used password'],
  ['a common password in capitals', 'QwertyUiopAS', 'password must not be a commonly used password'],
  ['digits in a row', '123456789012', 'password must not be a commonly used password'],
  ['too short', 'short one', 'password must be at least 12 characters'],
  ['too long', 'x'.repeat(PASSWORD_MAX) + 'y', `password must be at most ${PASSWORD_MAX} characters`],
  ['a megabyte', 'x'.repeat(1 << 20), `password must be at most ${PASSWORD_MAX} characters`],
];

for (const kind of DATABASES) {
  describe(`password rules (${kind})`, () => {
    const suite = sharedServer(kind, { TAPPROOF_TRUST_PROXY: 'true' });

    test('each kind of trivial password is refused with 422 naming its rule; the link stays unspent', async () => {
      const { server } = suite;
      const link = await invited(server, suite.world.teamId, `rules-${kind}@example.com`, 'read');
      const answers = [];
      for (const [, password] of REFUSED) {
        const response = await authCall(server, 'POST', '/auth/links/password', {
          body: { token: link.token, password },
          headers: { 'x-forwarded-for': randomIp() },
        });
        answers.push([response.status, response.body?.errors?.[0]?.detail, response.body?.errors?.[0]?.source?.pointer]);
      }
      assert.deepEqual(
        answers,
        REFUSED.map(([, , detail]) => [422, detail, '/password']),
      );
      // Long enough, mixed, not on the list: set, and it signs in.
      const set = await authCall(server, 'POST', '/auth/links/password', {
        body: { token: link.token, password: PASSWORD },
        headers: { 'x-forwarded-for': randomIp() },
      });
      assert.equal(set.status, 200, set.text);
      await signedIn(server, `rules-${kind}@example.com`, PASSWORD, randomIp());
    });

    test('the token is checked before the password: a made-up token with a bad password is the link error', async () => {
      const { server } = suite;
      for (const password of ['short', 'x'.repeat(1 << 20), PASSWORD]) {
        const response = await authCall(server, 'POST', '/auth/links/password', {
          body: { token: 'A'.repeat(43), password },
          headers: { 'x-forwarded-for': randomIp() },
        });
        assert.equal(response.status, 400, response.text);
        assert.equal(response.body.errors[0].title, 'The link is unknown, used or expired: ask an admin for a new one');
      }
    });

    test('a sign-in with a password longer than any that can be set is the one sign-in failure', async () => {
      const { server } = suite;
      const email = `long-${kind}@example.com`;
      const link = await invited(server, suite.world.teamId, email, 'read');
      assert.equal((await authCall(server, 'POST', '/auth/links/password', { body: { token: link.token, password: PASSWORD } })).status, 200);
      for (const [who, password] of [
        [email, PASSWORD + 'x'.repeat(PASSWORD_MAX)],
        [`nobody-${kind}@example.com`, 'x'.repeat(3 << 20)],
      ]) {
        const response = await authCall(server, 'POST', '/auth/sign-in', { body: { email: who, password }, headers: { 'x-forwarded-for': randomIp() } });
        assert.equal(response.status, 401);
        assert.equal(response.text, '{"errors":[{"status":"401","title":"Wrong email or password, or the account cannot sign in"}]}');
      }
    });

    test('a sign-in address no account can have (NUL, a control or bidirectional character) is the one sign-in failure, never a 500', async () => {
      const { server } = suite;
      for (const email of ['nul\u0000@example.com', 'soh\u0001@example.com', 'rlo\u202e@example.com', 'zw\u200b@example.com', 'lone\ud800@example.com']) {
        const response = await authCall(server, 'POST', '/auth/sign-in', { body: { email, password: PASSWORD }, headers: { 'x-forwarded-for': randomIp() } });
        assert.equal(response.status, 401, `${JSON.stringify(email)}: ${response.text}`);
        assert.equal(response.text, '{"errors":[{"status":"401","title":"Wrong email or password, or the account cannot sign in"}]}');
      }
    });

    test("the /auth routes' 415 names application/json, the media type they read", async () => {
      const { server } = suite;
      for (const path of ['/auth/sign-in', '/auth/links/inspect', '/auth/links/password']) {
        const response = await fetch(server.origin + path, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<sign-in/>' });
        assert.equal(response.status, 415);
        assert.deepEqual(await response.json(), { errors: [{ status: '415', title: 'Unsupported Media Type: send application/json' }] });
      }
    });
  });
}
