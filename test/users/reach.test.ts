// What reaches a team's people: a sandbox key never does (it is the key handed to developers and test
// servers), a production admin key and an admin's console session do, and a reset link, which hands over
// another person's account, is answered only to an admin signed in to the console.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { DATABASES, call, sharedServer } from '../kit/harness.js';
import { assertJsonApi } from '../kit/assertions.js';
import { authCall, invited, redeemed, tokenOf, type Browserish } from './helpers.js';

const SANDBOX_REACH = {
  status: '403',
  title: 'A sandbox key acts in its sandbox only',
  detail: "the team's people belong to both its worlds: managing them needs a production admin key or an admin signed in to the console",
};
const CONSOLE_ONLY = {
  status: '403',
  title: 'Only an admin signed in to the console may do this',
  detail: "a reset link hands over a person's account, so it is answered only to an admin signed in to the console (on the host: tapproof users reset)",
};

const inviteDoc = (email: string, role = 'admin') => ({ data: { type: 'users', attributes: { email, role } } });

function assertRefused(response: { status: number; body: any; text: string }, expected: typeof SANDBOX_REACH): void {
  assert.equal(response.status, 403, response.text);
  assertJsonApi(response as never);
  assert.deepEqual(response.body.errors, [expected]);
}

for (const kind of DATABASES) {
  describe(`who reaches a team's people (${kind})`, () => {
    const suite = sharedServer(kind);
    let admin: Browserish;
    let adminId: string;

    before(async () => {
      const { server, world } = suite;
      const made = await invited(server, world.teamId, `reach-admin-${kind}@example.com`);
      adminId = made.id;
      admin = await redeemed(server, made.token);
    });

    const users = () => suite.server.ctx.db.kysely.selectFrom('users').select(['id', 'email', 'role', 'disabled_at', 'password_hash']).orderBy('id').execute();

    test('a sandbox admin key cannot list, invite, change or reset people; nothing changes', async () => {
      const { server, world } = suite;
      const before = await users();
      const key = world.sandbox.key;
      assertRefused(await call(server, 'GET', '/users', { key }), SANDBOX_REACH);
      assertRefused(await call(server, 'POST', '/users', { key, body: inviteDoc(`takeover-${kind}@example.com`) }), SANDBOX_REACH);
      assertRefused(
        await call(server, 'PATCH', `/users/${adminId}`, { key, body: { data: { type: 'users', id: adminId, attributes: { role: 'read' } } } }),
        SANDBOX_REACH,
      );
      assertRefused(await call(server, 'POST', `/users/${adminId}/reset`, { key }), CONSOLE_ONLY);
      assert.deepEqual(await users(), before);
      const links = await server.ctx.db.kysely.selectFrom('user_links').select('user_id').execute();
      assert.deepEqual(links, []);
    });

    test('the chain a sandbox key used to climb to production is closed at its first step', async () => {
      const { server, world } = suite;
      // Invite an admin, redeem the link, switch the session to production, mint a live admin key.
      const invite = await call(server, 'POST', '/users', { key: world.sandbox.key, body: inviteDoc(`climber-${kind}@example.com`) });
      assertRefused(invite, SANDBOX_REACH);
      assert.equal(
        await server.ctx.db.kysely.selectFrom('users').select('id').where('email', '=', `climber-${kind}@example.com`).executeTakeFirst(),
        undefined,
      );
      const live = await server.ctx.db.kysely
        .selectFrom('api_keys')
        .select('id')
        .where('team_id', '=', world.teamId)
        .where('mode', '=', 'production')
        .execute();
      assert.equal(live.length, 1);
    });

    test('a production admin key lists, invites and changes people, but is never answered a reset link', async () => {
      const { server, world } = suite;
      const key = world.production.key;
      const listed = await call(server, 'GET', '/users', { key });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body.data.map((u: any) => u.id),
        [adminId],
      );
      const made = await call(server, 'POST', '/users', { key, body: inviteDoc(`second-${kind}@example.com`, 'read') });
      assert.equal(made.status, 201, made.text);
      const id = made.body.data.id;
      const changed = await call(server, 'PATCH', `/users/${id}`, { key, body: { data: { type: 'users', id, attributes: { role: 'write' } } } });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.data.attributes.role, 'write');
      const adminHash = (await users()).find((u) => u.id === adminId)!.password_hash;
      assert.match(adminHash ?? '', /\S/);
      const linksBefore = await server.ctx.db.kysely.selectFrom('user_links').select(['token_hash', 'purpose']).where('user_id', '=', id).execute();
      assertRefused(await call(server, 'POST', `/users/${id}/reset`, { key }), CONSOLE_ONLY);
      assertRefused(await call(server, 'POST', `/users/${adminId}/reset`, { key }), CONSOLE_ONLY);
      // The refused reset changed nothing: the invite link still stands, the admin still has a password.
      assert.deepEqual(await server.ctx.db.kysely.selectFrom('user_links').select(['token_hash', 'purpose']).where('user_id', '=', id).execute(), linksBefore);
      assert.equal((await users()).find((u) => u.id === adminId)!.password_hash, adminHash);
      const resets = await server.ctx.db.kysely.selectFrom('audit_events').select('id').where('operation', '=', 'user.reset').execute();
      assert.equal(resets.length, 0);
    });

    test('an admin signed in to the console (in either world) resets a person; the reset is in the audit log', async () => {
      const { server, world } = suite;
      const target = await invited(server, world.teamId, `reset-me-${kind}@example.com`, 'write');
      await redeemed(server, target.token);
      for (const mode of ['sandbox', 'production'] as const) {
        const switched = await authCall(server, 'POST', '/auth/mode', { as: admin, body: { mode } });
        assert.equal(switched.status, 200, switched.text);
        const reset = await authCall(server, 'POST', `/users/${target.id}/reset`, { as: admin, api: true });
        assert.equal(reset.status, 200, reset.text);
        const link: string = reset.body.data.attributes.link.url;
        assert.match(tokenOf(link), /^[A-Za-z0-9_-]{20,}$/);
      }
      const records = await server.ctx.db.kysely
        .selectFrom('audit_events')
        .select(['operation', 'resource_id', 'actor_type', 'actor_id', 'mode'])
        .where('operation', '=', 'user.reset')
        .orderBy('occurred_at')
        .execute();
      assert.deepEqual(records, [
        { operation: 'user.reset', resource_id: target.id, actor_type: 'user', actor_id: adminId, mode: null },
        { operation: 'user.reset', resource_id: target.id, actor_type: 'user', actor_id: adminId, mode: null },
      ]);
    });

    test("the team's own events (its people) are in the audit log of a production key and a person, not a sandbox key", async () => {
      const { server, world } = suite;
      const operationsOf = async (response: { status: number; body: any; text: string }) => {
        assert.equal(response.status, 200, response.text);
        return new Set<string>(response.body.data.map((e: any) => e.attributes.operation));
      };
      const sandbox = await operationsOf(await call(server, 'GET', '/audit-events', { key: world.sandbox.key }));
      const production = await operationsOf(await call(server, 'GET', '/audit-events', { key: world.production.key }));
      await authCall(server, 'POST', '/auth/mode', { as: admin, body: { mode: 'sandbox' } });
      const person = await operationsOf(await authCall(server, 'GET', '/audit-events', { as: admin, api: true }));
      assert.deepEqual(
        [...sandbox].filter((op) => op.startsWith('user.')),
        [],
      );
      for (const seen of [production, person])
        for (const op of ['user.invite', 'user.update', 'user.set_password', 'user.reset']) assert.ok(seen.has(op), `${op} in ${[...seen].join(', ')}`);
    });

    test('an invite address with a control, bidirectional or invisible character → 422 naming the rule; nothing stored', async () => {
      const { server, world } = suite;
      const before = await users();
      const cases: [string, string][] = [
        ['nul\u0000@example.com', 'email must not contain control characters (U+0000 to U+001F, U+007F)'],
        ['soh\u0001@example.com', 'email must not contain control characters (U+0000 to U+001F, U+007F)'],
        ['rlo\u202e@example.com', 'email must not contain spaces, control, format or invisible characters (such as U+0000, U+200B or U+202E)'],
        ['zw\u200bsp@example.com', 'email must not contain spaces, control, format or invisible characters (such as U+0000, U+200B or U+202E)'],
        ['lone\ud800@example.com', 'email must be well-formed Unicode (no lone UTF-16 surrogates)'],
      ];
      for (const [email, detail] of cases) {
        const response = await call(server, 'POST', '/users', { key: world.production.key, body: inviteDoc(email) });
        assert.equal(response.status, 422, `${JSON.stringify(email)}: ${response.text}`);
        assert.deepEqual(response.body.errors, [{ status: '422', title: 'Validation failed', detail, source: { pointer: '/data/attributes/email' } }]);
      }
      assert.deepEqual(await users(), before);
    });
  });
}
