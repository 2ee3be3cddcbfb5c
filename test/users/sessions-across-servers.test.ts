// Each server keeps the console sessions it has read (src/users/session-cache.ts), so that a console request
// costs no database read; a change made through one server must still hold on the other from its very
// answer on: sign-out, a mode switch, a new role, a disabled account, a reset.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cliActor } from '../../src/audit/record.js';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { createKey } from '../../src/keys/service.js';
import { createTeam } from '../../src/teams/service.js';
import { inviteUser } from '../../src/users/service.js';
import { startServe, type ServeProcess } from '../cli/process.js';
import { DATABASES, freshStorage, type Storage } from '../kit/harness.js';
import { authCall, redeemed, signedIn, tokenOf, type Browserish } from './helpers.js';

for (const kind of DATABASES) {
  describe(`console sessions across two servers (${kind})`, () => {
    let storage: Storage;
    let a: ServeProcess;
    let b: ServeProcess;
    let ctx: AppContext;
    let teamId: string;
    let adminKey: string;

    before(async () => {
      storage = await freshStorage(kind);
      const env = { ...storage.env, TAPPROOF_RATE_LIMIT: '100000' };
      [a, b] = await Promise.all([startServe(env), startServe(env)]);
      ctx = createContext(storage.open(), loadConfig(env));
      teamId = (await createTeam(ctx.db.kysely, 'two servers', null, ctx.clock)).id;
      adminKey = (await createKey(ctx.db.kysely, teamId, 'production', ctx.clock, { role: 'admin' })).key;
    });

    after(async () => {
      await Promise.all([a, b].filter(Boolean).map((p) => p.stop()));
      await ctx?.db.close();
      await storage?.drop();
    });

    /** A person signed in through server a, their session already read (and kept) by server b. */
    async function person(email: string): Promise<{ id: string; as: Browserish }> {
      const { user, link } = await inviteUser(ctx, { teamId, actor: cliActor() }, { email, role: 'write' }, a.origin);
      const as = await redeemed(a, tokenOf(link.url));
      assert.equal((await authCall(b, 'GET', '/tags', { as, api: true })).status, 200);
      assert.equal((await authCall(b, 'GET', '/tags', { as, api: true })).status, 200);
      return { id: user.id, as };
    }

    const asAdmin = (method: string, path: string, body?: unknown) =>
      authCall(a, method, path, { api: true, body, headers: { authorization: `Bearer ${adminKey}`, accept: 'application/vnd.api+json' } });

    test('signed out through one server: the other refuses the cookie at once', async () => {
      const { as } = await person(`out-${kind}@example.com`);
      assert.equal((await authCall(a, 'POST', '/auth/sign-out', { as })).status, 204);
      const refused = await authCall(b, 'GET', '/tags', { as, api: true });
      assert.equal(refused.status, 401);
      assert.equal(refused.body.errors[0].title, 'Not signed in, or the session has ended');
      assert.equal((await authCall(b, 'GET', '/auth/session', { as })).status, 204);
    });

    test('the world switched through one server: the other acts in it at once', async () => {
      const { as } = await person(`mode-${kind}@example.com`);
      const switched = await authCall(a, 'POST', '/auth/mode', { as, body: { mode: 'production' } });
      assert.equal(switched.status, 200, switched.text);
      const session = await authCall(b, 'GET', '/auth/session', { as });
      assert.equal(session.body.mode, 'production');
      const created = await authCall(b, 'POST', '/tags', {
        as,
        api: true,
        body: { data: [{ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: `https://two-servers.example/${kind}` } }] },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(
        (await ctx.db.kysely.selectFrom('tags').select('mode').where('id', '=', created.body.data[0].id).executeTakeFirstOrThrow()).mode,
        'production',
      );
    });

    for (const [what, attributes] of [
      ['demoted to read', { role: 'read' }],
      ['disabled', { disabled: true }],
    ] as const)
      test(`${what} by an admin through one server: the other refuses the person's session at once`, async () => {
        const { id, as } = await person(`${what.split(' ')[0]}-${kind}@example.com`);
        const changed = await asAdmin('PATCH', `/users/${id}`, { data: { type: 'users', id, attributes } });
        assert.equal(changed.status, 200, changed.text);
        assert.equal((await authCall(b, 'GET', '/tags', { as, api: true })).status, 401);
      });

    test('reset by an admin signed in to the console of one server: the other refuses the person at once', async () => {
      const { id, as } = await person(`reset-${kind}@example.com`);
      const { user: admin, link } = await inviteUser(ctx, { teamId, actor: cliActor() }, { email: `admin-${kind}@example.com`, role: 'admin' }, a.origin);
      const adminSession = await redeemed(a, tokenOf(link.url));
      await authCall(a, 'POST', '/auth/mode', { as: adminSession, body: { mode: 'production' } });
      const reset = await authCall(a, 'POST', `/users/${id}/reset`, { as: adminSession, api: true });
      assert.equal(reset.status, 200, `${admin.id}: ${reset.text}`);
      assert.equal((await authCall(b, 'GET', '/tags', { as, api: true })).status, 401);
    });

    test('a session the other server has not read yet works there, and signing in again works on both', async () => {
      const email = `fresh-${kind}@example.com`;
      await person(email);
      const again = await signedIn(b, email);
      assert.equal((await authCall(a, 'GET', '/auth/session', { as: again })).body.user.email, email);
    });
  });
}
