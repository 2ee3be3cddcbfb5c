// The team's users through the API (/users: a production admin key, or an admin signed in to the
// console), on both databases: invite with a one-time link, list, change a role, disable and enable,
// reset (a signed-in admin only); every refusal the documents can meet, the last admin kept, another
// team's user never reached, and each change's effect on live sessions.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createKey } from '../../src/keys/service.js';
import { isoMicros } from '../../src/time.js';
import { DATABASES, call, sharedServer, type TestServer } from '../kit/harness.js';
import { PASSWORD, authCall, invited, redeemed, signedIn, tokenOf, type Browserish } from './helpers.js';

const inviteDoc = (attributes: Record<string, unknown>) => ({ data: { type: 'users', attributes } });
const patchDoc = (id: string, attributes: Record<string, unknown>) => ({ data: { type: 'users', id, attributes } });
const userRow = (server: TestServer, id: string) => server.ctx.db.kysely.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const auditOf = (server: TestServer, id: string) =>
  server.ctx.db.kysely.selectFrom('audit_events').selectAll().where('resource_id', '=', id).orderBy('id').execute();

for (const kind of DATABASES) {
  describe(`users through the API (${kind})`, () => {
    const suite = sharedServer(kind);
    let admin: string;
    /** An admin of the team signed in to the console: the only one a reset link is answered to. */
    let person: Browserish;

    before(async () => {
      admin = suite.world.production.key;
      const made = await invited(suite.server, suite.world.teamId, `admin-${kind}@example.com`, 'admin');
      person = await redeemed(suite.server, made.token);
    });

    test('invite: 201 with the user and a one-time link that works once; the list shows no link, no hash', async () => {
      const { server } = suite;
      const made = await call(server, 'POST', '/users', { key: admin, body: inviteDoc({ email: ` Dee-${kind}@Example.COM `, role: 'write' }) });
      assert.equal(made.status, 201, made.text);
      const { id, attributes } = made.body.data;
      assert.equal(attributes.email, `dee-${kind}@example.com`);
      assert.deepEqual(
        [attributes.role, attributes.password, attributes.passkeys, attributes.single_sign_on, attributes.disabled_at],
        ['write', false, 0, false, null],
      );
      assert.match(attributes.link.url, new RegExp(`^${server.origin}/console/welcome#[A-Za-z0-9_-]{43}$`));
      const hours = (Date.parse(attributes.link.expires_at) - Date.parse(attributes.created_at)) / 3_600_000;
      assert.equal(Math.round(hours), 72);
      await redeemed(server, tokenOf(attributes.link.url));
      const listed = await call(server, 'GET', '/users', { key: admin });
      assert.equal(listed.status, 200);
      const dee = listed.body.data.find((u: any) => u.id === id);
      assert.equal(dee.attributes.password, true);
      assert.equal(dee.attributes.link, undefined);
      assert.ok(!listed.text.includes('scrypt'));
      const [event] = await auditOf(server, id);
      assert.deepEqual(
        [event!.operation, event!.actor_type, event!.actor_id, event!.mode, JSON.parse(event!.changes!)],
        ['user.invite', 'key', suite.world.production.id, null, { email: `dee-${kind}@example.com`, role: 'write' }],
      );
    });

    test('invite refusals: a taken address 409, bad values 422 naming each, malformed documents 400; nothing made', async () => {
      const { server } = suite;
      const count = async () => (await server.ctx.db.kysely.selectFrom('users').select('id').execute()).length;
      const before = await count();
      const taken = await call(server, 'POST', '/users', { key: admin, body: inviteDoc({ email: `DEE-${kind}@example.com`, role: 'read' }) });
      assert.equal(taken.status, 409, taken.text);
      assert.equal(taken.body.errors[0].title, 'A user with this email exists');
      const local = 'a'.repeat(64);
      for (const [attributes, pointers] of [
        [{ email: 'not-an-address', role: 'read' }, ['/data/attributes/email']],
        [{ email: `ok-${kind}@example.com`, role: 'verify' }, ['/data/attributes/role']],
        [{ email: 7, role: 'owner' }, ['/data/attributes/email', '/data/attributes/role']],
        [{ email: `${local}@${'b'.repeat(186)}.com`, role: 'read' }, ['/data/attributes/email']],
        [{ email: `ok-${kind}@example.com`, role: 'read', disabled: true }, ['/data/attributes/disabled']],
      ] as const) {
        const refused = await call(server, 'POST', '/users', { key: admin, body: inviteDoc(attributes) });
        assert.equal(refused.status, 422, refused.text);
        assert.deepEqual(
          refused.body.errors.map((e: any) => e.source.pointer),
          pointers,
        );
      }
      // 254 characters is the longest address.
      const longest = `${local}@${'b'.repeat(186)}.co`;
      assert.equal(longest.length, 254);
      assert.equal((await call(server, 'POST', '/users', { key: admin, body: inviteDoc({ email: longest, role: 'read' }) })).status, 201);
      for (const body of [
        '{',
        '[]',
        { data: { type: 'keys', attributes: {} } },
        { data: { type: 'users', id: 'usr_x', attributes: { email: 'x@y.zz', role: 'read' } } },
      ]) {
        const refused = await call(server, 'POST', '/users', { key: admin, body });
        assert.equal(refused.status, 400, `${JSON.stringify(body)}: ${refused.text}`);
      }
      assert.equal((await call(server, 'POST', '/users', { key: admin, body: inviteDoc({ email: `x-${kind}@example.com` }) })).status, 400);
      assert.equal(await count(), before + 1);
    });

    test("a role change takes effect at once: the user's sessions end; the record says from and to", async () => {
      const { server } = suite;
      const eve = await invited(server, suite.world.teamId, `eve-${kind}@example.com`, 'write');
      const session = await redeemed(server, eve.token);
      assert.equal((await authCall(server, 'GET', '/tags', { as: session, api: true })).status, 200);
      const changed = await call(server, 'PATCH', `/users/${eve.id}`, { key: admin, body: patchDoc(eve.id, { role: 'read' }) });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.data.attributes.role, 'read');
      assert.equal((await authCall(server, 'GET', '/tags', { as: session, api: true })).status, 401);
      const events = await auditOf(server, eve.id);
      assert.deepEqual(
        events.map((e) => [e.operation, e.changes && JSON.parse(e.changes)]),
        [
          ['user.invite', { email: `eve-${kind}@example.com`, role: 'write' }],
          ['user.set_password', { password: 'set' }],
          ['user.update', { role: { from: 'write', to: 'read' } }],
        ],
      );
      // The same role again changes nothing and records nothing.
      assert.equal((await call(server, 'PATCH', `/users/${eve.id}`, { key: admin, body: patchDoc(eve.id, { role: 'read' }) })).status, 200);
      assert.equal((await auditOf(server, eve.id)).length, 3);
    });

    test('disable: no sign-in, no session; enable: signs in again', async () => {
      const { server } = suite;
      const fay = await invited(server, suite.world.teamId, `fay-${kind}@example.com`, 'read');
      const session = await redeemed(server, fay.token);
      const since = server.clock.nowMicros();
      const off = await call(server, 'PATCH', `/users/${fay.id}`, { key: admin, body: { data: { type: 'users', attributes: { disabled: true } } } });
      assert.equal(off.status, 200, off.text);
      // The instant of the change, as stored.
      const { disabled_at } = await server.ctx.db.kysely.selectFrom('users').select('disabled_at').where('id', '=', fay.id).executeTakeFirstOrThrow();
      assert.ok(disabled_at !== null && disabled_at >= since && disabled_at <= server.clock.nowMicros(), String(disabled_at));
      assert.equal(off.body.data.attributes.disabled_at, isoMicros(disabled_at));
      assert.equal((await authCall(server, 'GET', '/auth/session', { as: session })).status, 204);
      assert.equal((await authCall(server, 'POST', '/auth/sign-in', { body: { email: `fay-${kind}@example.com`, password: PASSWORD } })).status, 401);
      const on = await call(server, 'PATCH', `/users/${fay.id}`, { key: admin, body: patchDoc(fay.id, { disabled: false }) });
      assert.equal(on.body.data.attributes.disabled_at, null);
      assert.equal((await authCall(server, 'POST', '/auth/sign-in', { body: { email: `fay-${kind}@example.com`, password: PASSWORD } })).status, 200);
    });

    test('the team keeps an enabled admin: the last one cannot be demoted or disabled (422), another can', async () => {
      const { server } = suite;
      const team = await server.seedTeam({ name: `lone-${kind}` });
      const gus = await invited(server, team.teamId, `gus-${kind}@example.com`, 'admin');
      for (const attributes of [{ role: 'write' }, { disabled: true }]) {
        const refused = await call(server, 'PATCH', `/users/${gus.id}`, { key: team.production.key, body: patchDoc(gus.id, attributes) });
        assert.equal(refused.status, 422, refused.text);
        assert.equal(refused.body.errors[0].detail, 'the team would have no enabled admin left');
      }
      assert.equal((await userRow(server, gus.id)).role, 'admin');
      await invited(server, team.teamId, `hal-${kind}@example.com`, 'admin');
      assert.equal((await call(server, 'PATCH', `/users/${gus.id}`, { key: team.production.key, body: patchDoc(gus.id, { role: 'write' }) })).status, 200);
    });

    test("update refusals: bad values 422, a mismatched id 400, unknown and other teams' users 404", async () => {
      const { server } = suite;
      const ivy = await invited(server, suite.world.teamId, `ivy-${kind}@example.com`, 'read');
      for (const attributes of [{ role: 'verify' }, { disabled: 'yes' }, { email: 'new@example.com' }]) {
        assert.equal((await call(server, 'PATCH', `/users/${ivy.id}`, { key: admin, body: patchDoc(ivy.id, attributes) })).status, 422);
      }
      const mismatch = await call(server, 'PATCH', `/users/${ivy.id}`, { key: admin, body: patchDoc('usr_0000000000000000000000', { role: 'write' }) });
      assert.equal(mismatch.status, 400);
      const other = await server.seedTeam({ name: `other-${kind}` });
      const outsider = await redeemed(server, (await invited(server, other.teamId, `outsider-${kind}@example.com`, 'admin')).token);
      for (const id of ['usr_0000000000000000000000', ivy.id]) {
        const response = await call(server, 'PATCH', `/users/${id}`, { key: other.production.key, body: patchDoc(id, { role: 'admin' }) });
        assert.equal(response.status, 404, response.text);
        const reset = await authCall(server, 'POST', `/users/${id}/reset`, { as: outsider, api: true });
        assert.equal(reset.status, 404, reset.text);
      }
      assert.equal((await userRow(server, ivy.id)).role, 'read');
      assert.equal((await userRow(server, ivy.id)).password_hash, null);
      const listed = await call(server, 'GET', '/users', { key: other.production.key });
      assert.deepEqual(
        listed.body.data.map((u: any) => u.attributes.email),
        [`outsider-${kind}@example.com`],
      );
    });

    test('reset: password and passkeys removed, sessions ended, the old password refused, a new link sets a new one', async () => {
      const { server } = suite;
      const jo = await invited(server, suite.world.teamId, `jo-${kind}@example.com`, 'write');
      const session = await redeemed(server, jo.token);
      const reset = await authCall(server, 'POST', `/users/${jo.id}/reset`, { as: person, api: true });
      assert.equal(reset.status, 200, reset.text);
      assert.equal(reset.body.data.attributes.password, false);
      assert.equal((await authCall(server, 'GET', '/auth/session', { as: session })).status, 204);
      assert.equal((await authCall(server, 'POST', '/auth/sign-in', { body: { email: `jo-${kind}@example.com`, password: PASSWORD } })).status, 401);
      const inspected = await authCall(server, 'POST', '/auth/links/inspect', { body: { token: tokenOf(reset.body.data.attributes.link.url) } });
      assert.equal(inspected.body.purpose, 'reset');
      await redeemed(server, tokenOf(reset.body.data.attributes.link.url), 'a brand new passphrase');
      assert.equal(
        (await authCall(server, 'POST', '/auth/sign-in', { body: { email: `jo-${kind}@example.com`, password: 'a brand new passphrase' } })).status,
        200,
      );
      const [, , record] = await auditOf(server, jo.id);
      assert.deepEqual([record!.operation, JSON.parse(record!.changes!)], ['user.reset', { password: 'removed', passkeys_removed: 0, sessions_ended: 1 }]);
    });

    test('a link is refused once expired (72 hours), and for a disabled user', async () => {
      const { server } = suite;
      const kit = await invited(server, suite.world.teamId, `kit-${kind}@example.com`, 'read');
      const lee = await invited(server, suite.world.teamId, `lee-${kind}@example.com`, 'read');
      await call(server, 'PATCH', `/users/${lee.id}`, { key: admin, body: patchDoc(lee.id, { disabled: true }) });
      assert.equal((await authCall(server, 'POST', '/auth/links/inspect', { body: { token: lee.token } })).status, 400);
      server.clock.advance(71 * 3_600_000);
      assert.equal((await authCall(server, 'POST', '/auth/links/inspect', { body: { token: kit.token } })).status, 200);
      server.clock.advance(3_600_000);
      assert.equal((await authCall(server, 'POST', '/auth/links/password', { body: { token: kit.token, password: PASSWORD } })).status, 400);
      assert.equal((await userRow(server, kit.id)).password_hash, null);
    });

    test("only admins: write and read keys get 403; the team's user changes are in the audit list of a production key and a person, not a sandbox key", async () => {
      const { server } = suite;
      for (const role of ['write', 'read'] as const) {
        const key = (await createKey(server.ctx.db.kysely, suite.world.teamId, 'production', server.clock, { role })).key;
        assert.equal((await call(server, 'GET', '/users', { key })).status, 403);
        assert.equal((await call(server, 'POST', '/users', { key, body: inviteDoc({ email: `no-${role}-${kind}@example.com`, role: 'admin' }) })).status, 403);
      }
      const invites = await server.ctx.db.kysely
        .selectFrom('audit_events')
        .select('resource_id')
        .where('team_id', '=', suite.world.teamId)
        .where('operation', '=', 'user.invite')
        .execute();
      const ids = (r: { body: any }) => r.body.data.map((e: any) => e.attributes.resource.id).sort();
      const expected = invites.map((r) => r.resource_id).sort();
      assert.ok(expected.length >= 5);
      const live = await call(server, 'GET', '/audit-events?operation=user.invite&page_size=100', { key: suite.world.production.key });
      assert.equal(live.status, 200, live.text);
      assert.deepEqual(ids(live), expected);
      // Signed in anew: the link test before moved the clock past the first session's 12 hours.
      const again = await signedIn(server, `admin-${kind}@example.com`);
      const seen = await authCall(server, 'GET', '/audit-events?operation=user.invite&page_size=100', { as: again, api: true });
      assert.equal(seen.status, 200, seen.text);
      assert.deepEqual(ids(seen), expected);
      const sandbox = await call(server, 'GET', '/audit-events?operation=user.invite', { key: suite.world.sandbox.key });
      assert.equal(sandbox.status, 200, sandbox.text);
      assert.deepEqual(sandbox.body.data, []);
    });
  });
}
