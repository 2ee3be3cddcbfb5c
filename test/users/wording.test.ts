// What the API tells a person, on both engines: a refusal names the user and the roles a person can
// have (never the key role verify), a passkey's failure is not worded as a password's, and a password's
// failures stay one answer.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { SoftAuthenticator } from '../kit/authenticator.js';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { authCall, invited, redeemed, type Browserish } from './helpers.js';

const verificationBody = { data: { type: 'verifications', attributes: { url: 'https://example.com/p/x?picc_data=00&cmac=00' } } };

for (const kind of DATABASES) {
  describe(`what the API tells a person (${kind})`, () => {
    const suite = sharedServer(kind);
    let reader: Browserish;
    const email = `reader-${kind}@example.com`;

    before(async () => {
      reader = await redeemed(suite.server, (await invited(suite.server, suite.world.teamId, email, 'read')).token);
    });

    test("a read user's 403 names this user's role, not an API key's", async () => {
      const refused = await authCall(suite.server, 'POST', '/tags', {
        as: reader,
        api: true,
        body: { data: [{ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: 'https://example.com/p/1' } }] },
      });
      assert.equal(refused.status, 403, refused.text);
      assert.deepEqual(refused.body.errors[0], {
        status: '403',
        title: "This user's role does not allow this request",
        detail: "this user's role is read; this request needs a user of role admin or write",
      });
    });

    test('a verification refused to a read user names the user roles only, never verify', async () => {
      const refused = await authCall(suite.server, 'POST', '/verifications', { as: reader, api: true, body: verificationBody });
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.body.errors[0].detail, "this user's role is read; this request needs a user of role admin or write");
      // A key is still told every role that would do, verify included.
      const made = await authCall(suite.server, 'POST', '/keys', {
        api: true,
        body: { data: { type: 'keys', attributes: { role: 'read' } } },
        headers: { authorization: `Bearer ${suite.world.sandbox.key}` },
      });
      assert.equal(made.status, 201, made.text);
      const byKey = await authCall(suite.server, 'POST', '/verifications', {
        api: true,
        body: verificationBody,
        headers: { authorization: `Bearer ${made.body.data.attributes.key}` },
      });
      assert.equal(byKey.body.errors[0].title, "The API key's role does not allow this request");
      assert.equal(byKey.body.errors[0].detail, "this key's role is read; this request needs a key of role admin, write or verify");
    });

    test("a refused passkey is told as a passkey's failure; a wrong password keeps the one password answer", async () => {
      const options = await authCall(suite.server, 'POST', '/auth/passkeys/sign-in/options', { body: {} });
      assert.equal(options.status, 200, options.text);
      const stranger = new SoftAuthenticator(suite.server.origin);
      const passkey = await authCall(suite.server, 'POST', '/auth/passkeys/sign-in', { body: { response: stranger.assert(options.body) } });
      assert.equal(passkey.status, 401, passkey.text);
      assert.equal(passkey.body.errors[0].title, 'The passkey was not accepted: it is unknown, the attempt expired, or its account cannot sign in');
      assert.doesNotMatch(passkey.text, /password/);

      const password = await authCall(suite.server, 'POST', '/auth/sign-in', { body: { email, password: 'not the password at all' } });
      assert.equal(password.status, 401, password.text);
      assert.equal(password.body.errors[0].title, 'Wrong email or password, or the account cannot sign in');
    });
  });
}
