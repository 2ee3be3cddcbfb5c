// POST /keys, POST /keys/:id/roll, DELETE /keys/:id and expiry, on both databases: what an admin
// key makes, what each answer shows (a key's text once, never again), bad input refused with the
// field named and nothing made, and the moment an expired or rolled key stops working.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createKey } from '../../src/keys/service.js';
import { DATABASES, call, sharedServer, type TestServer } from '../kit/harness.js';
import { ISO_MICROS, assertError, assertJsonApi, assertValidation } from '../kit/assertions.js';

const keysDoc = (attributes: unknown) => ({ data: { type: 'keys', attributes } });
const SEVEN_DAYS = 7 * 24 * 3600;

const keyCount = async (server: TestServer, teamId: string) =>
  Number(
    (
      await server.ctx.db.kysely
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('team_id', '=', teamId)
        .executeTakeFirstOrThrow()
    ).n,
  );

const iso = (server: TestServer, secondsFromNow: number) => new Date(server.clock.nowMicros() / 1000 + secondsFromNow * 1000).toISOString();

for (const kind of DATABASES) {
  describe(`POST /keys (${kind})`, () => {
    const suite = sharedServer(kind);

    test('an expiry reads back exactly as sent up to the last microsecond before 2200; from 2200 on it is refused, naming the bound', async () => {
      const { server, world } = suite;
      const before = await keyCount(server, world.teamId);
      const latest = '2199-12-31T23:59:59.999999Z';
      const made = await call(server, 'POST', '/keys', { key: world.sandbox.key, body: keysDoc({ role: 'read', expires_at: latest }) });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.data.attributes.expires_at, latest);
      const read = await call(server, 'GET', `/keys/${made.body.data.id}`, { key: world.sandbox.key });
      assert.equal(read.body.data.attributes.expires_at, latest);
      for (const late of ['2200-01-01T00:00:00Z', '2200-01-01T00:00:00.000001Z', '9999-12-31T23:59:59.999999Z', '2199-12-31T23:00:00-01:00']) {
        const refused = await call(server, 'POST', '/keys', { key: world.sandbox.key, body: keysDoc({ role: 'read', expires_at: late }) });
        assert.equal(refused.status, 422, `${late}: ${refused.text}`);
        assert.deepEqual(refused.body.errors, [
          {
            status: '422',
            title: 'Validation failed',
            detail: 'expires_at must be before 2200-01-01T00:00:00Z',
            source: { pointer: '/data/attributes/expires_at' },
          },
        ]);
      }
      assert.equal(await keyCount(server, world.teamId), before + 1);
    });

    test('an admin key makes a key of each role; its text is in the answer once and works at once with that role', async () => {
      const { server, world } = suite;
      for (const role of ['admin', 'write', 'read', 'verify']) {
        const expires = iso(server, 3600);
        const made = await call(server, 'POST', '/keys', { key: world.sandbox.key, body: keysDoc({ role, name: `${role} key`, expires_at: expires }) });
        assert.equal(made.status, 201, made.text);
        assertJsonApi(made);
        const { id, attributes } = made.body.data;
        assert.match(id, /^key_[0-9A-Za-z]{22}$/);
        assert.match(attributes.key, /^tp_sandbox_[0-9A-Za-z]{32}$/);
        assert.deepEqual(
          { ...attributes, key: undefined, created_at: undefined },
          {
            team_id: world.teamId,
            mode: 'sandbox',
            role,
            name: `${role} key`,
            expires_at: new Date(expires).toISOString().replace('Z', '000Z'),
            revoked_at: null,
            replaced_by: null,
            last_used_at: null,
            key: undefined,
            created_at: undefined,
          },
        );
        assert.match(attributes.created_at, ISO_MICROS);
        const self = await call(server, 'GET', '/keys/current', { key: attributes.key });
        assert.equal(self.status, 200, self.text);
        assert.equal(self.body.data.id, id);
        assert.equal(self.body.data.attributes.key, undefined);
        const listed = await call(server, 'GET', '/keys', { key: world.sandbox.key });
        assert.ok(!listed.text.includes(attributes.key), 'a list never shows a key text');
      }
    });

    test('a production admin key makes production keys; the new key is of the caller’s mode', async () => {
      const { server, world } = suite;
      const made = await call(server, 'POST', '/keys', { key: world.production.key, body: keysDoc({ role: 'verify' }) });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.data.attributes.mode, 'production');
      assert.match(made.body.data.attributes.key, /^tp_live_/);
      assert.equal(made.body.data.attributes.name, null);
      assert.equal(made.body.data.attributes.expires_at, null);
    });

    test('bad documents → 400, bad attributes → 422 naming each field; nothing made', async () => {
      const { server, world } = suite;
      const before = await keyCount(server, world.teamId);
      const key = world.sandbox.key;
      for (const body of [
        {},
        { data: [] },
        { data: { type: 'tags', attributes: { role: 'read' } } },
        { data: { type: 'keys' } },
        { data: { type: 'keys', id: 'key_x', attributes: { role: 'read' } } },
      ])
        assertError(await call(server, 'POST', '/keys', { key, body }), 400);
      assertError(await call(server, 'POST', '/keys', { key, body: keysDoc({ name: 'x' }) }), 400);
      const cases: [unknown, string[]][] = [
        [{ role: 'owner' }, ['/data/attributes/role']],
        [{ role: 1 }, ['/data/attributes/role']],
        [{ role: 'read', name: '' }, ['/data/attributes/name']],
        [{ role: 'read', name: 'n'.repeat(101) }, ['/data/attributes/name']],
        [{ role: 'read', name: 'tab\there' }, ['/data/attributes/name']],
        [{ role: 'read', name: 7 }, ['/data/attributes/name']],
        [{ role: 'read', expires_at: iso(server, -1) }, ['/data/attributes/expires_at']],
        [{ role: 'read', expires_at: 'tomorrow' }, ['/data/attributes/expires_at']],
        [{ role: 'read', expires_at: 1767225600 }, ['/data/attributes/expires_at']],
        [{ role: 'read', team_id: world.teamId, mode: 'production' }, ['/data/attributes/team_id', '/data/attributes/mode']],
        [{ role: 'root', name: '', expires_at: 'x' }, ['/data/attributes/role', '/data/attributes/name', '/data/attributes/expires_at']],
      ];
      for (const [attributes, pointers] of cases) assertValidation(await call(server, 'POST', '/keys', { key, body: keysDoc(attributes) }), pointers);
      assert.equal(await keyCount(server, world.teamId), before);
      // The limit itself is fine.
      const longest = await call(server, 'POST', '/keys', { key, body: keysDoc({ role: 'read', name: 'n'.repeat(100) }) });
      assert.equal(longest.status, 201, longest.text);
    });
  });

  describe(`roll, revoke and expiry (${kind})`, () => {
    const suite = sharedServer(kind);

    const make = async (server: TestServer, key: string, attributes: object) => {
      const made = await call(server, 'POST', '/keys', { key, body: keysDoc(attributes) });
      assert.equal(made.status, 201, made.text);
      return { id: made.body.data.id as string, key: made.body.data.attributes.key as string };
    };

    test('roll with an overlap: both work until it ends, then only the new one; same role and name', async () => {
      const { server, world } = suite;
      const old = await make(server, world.sandbox.key, { role: 'read', name: 'backend' });
      // Cached first: the roll must reach the cache, not only the database.
      assert.equal((await call(server, 'GET', '/tags', { key: old.key })).status, 200);
      const rolled = await call(server, 'POST', `/keys/${old.id}/roll`, { key: world.sandbox.key, body: keysDoc({ expires_in: 60 }) });
      assert.equal(rolled.status, 201, rolled.text);
      const fresh = rolled.body.data;
      assert.notEqual(fresh.id, old.id);
      assert.equal(fresh.attributes.role, 'read');
      assert.equal(fresh.attributes.name, 'backend');
      assert.equal(fresh.attributes.expires_at, null);
      const before = (await call(server, 'GET', `/keys/${old.id}`, { key: world.sandbox.key })).body.data.attributes;
      assert.equal(before.replaced_by, fresh.id);
      assert.equal(Date.parse(before.expires_at) - Date.parse(fresh.attributes.created_at), 60_000);
      for (const k of [old.key, fresh.attributes.key]) assert.equal((await call(server, 'GET', '/tags', { key: k })).status, 200);
      server.clock.advance(59_000);
      assert.equal((await call(server, 'GET', '/tags', { key: old.key })).status, 200);
      server.clock.advance(1_000);
      assertError(await call(server, 'GET', '/tags', { key: old.key }), 401);
      assert.equal((await call(server, 'GET', '/tags', { key: fresh.attributes.key })).status, 200);
    });

    test('roll without a body ends the old key at once; a key rolls once; a revoked or expired key does not roll', async () => {
      const { server, world } = suite;
      const old = await make(server, world.sandbox.key, { role: 'write' });
      assert.equal((await call(server, 'GET', '/tags', { key: old.key })).status, 200);
      const rolled = await call(server, 'POST', `/keys/${old.id}/roll`, { key: world.sandbox.key });
      assert.equal(rolled.status, 201, rolled.text);
      assertError(await call(server, 'GET', '/tags', { key: old.key }), 401);
      const again = await call(server, 'POST', `/keys/${old.id}/roll`, { key: world.sandbox.key, body: keysDoc({}) });
      assert.equal(again.status, 409, again.text);
      assert.equal(again.body.errors[0].detail, `the key was already rolled to ${rolled.body.data.id}`);
      const revoked = await make(server, world.sandbox.key, { role: 'read' });
      assert.equal((await call(server, 'DELETE', `/keys/${revoked.id}`, { key: world.sandbox.key })).status, 204);
      const refused = await call(server, 'POST', `/keys/${revoked.id}/roll`, { key: world.sandbox.key });
      assertError(refused, 409, { detail: true });
      assert.equal(refused.body.errors[0].detail, 'the key is revoked');
      const expiring = await make(server, world.sandbox.key, { role: 'read', expires_at: iso(server, 10) });
      server.clock.advance(10_000);
      const expired = await call(server, 'POST', `/keys/${expiring.id}/roll`, { key: world.sandbox.key });
      assertError(expired, 409, { detail: true });
      assert.equal(expired.body.errors[0].detail, 'the key has expired');
    });

    test('a second roll of a key still in its overlap is refused as already rolled, not as revoked or expired', async () => {
      const { server, world } = suite;
      const old = await make(server, world.sandbox.key, { role: 'read' });
      const rolled = await call(server, 'POST', `/keys/${old.id}/roll`, { key: world.sandbox.key, body: keysDoc({ expires_in: 3600 }) });
      assert.equal(rolled.status, 201, rolled.text);
      // The old key still works: it is neither revoked nor expired.
      assert.equal((await call(server, 'GET', '/tags', { key: old.key })).status, 200);
      const again = await call(server, 'POST', `/keys/${old.id}/roll`, { key: world.sandbox.key, body: keysDoc({ expires_in: 3600 }) });
      assert.equal(again.status, 409, again.text);
      assert.deepEqual(again.body.errors[0], {
        status: '409',
        title: 'The key has already been rolled: roll its successor instead',
        detail: `the key was already rolled to ${rolled.body.data.id}`,
      });
    });

    test('a rolled key that expires sooner than the overlap keeps its own expiry; the new one inherits it', async () => {
      const { server, world } = suite;
      const expires = iso(server, 30);
      const old = await make(server, world.sandbox.key, { role: 'verify', expires_at: expires });
      const rolled = await call(server, 'POST', `/keys/${old.id}/roll`, { key: world.sandbox.key, body: keysDoc({ expires_in: 3600 }) });
      assert.equal(rolled.status, 201, rolled.text);
      assert.equal(Date.parse(rolled.body.data.attributes.expires_at), Date.parse(expires));
      const after = (await call(server, 'GET', `/keys/${old.id}`, { key: world.sandbox.key })).body.data.attributes;
      assert.equal(Date.parse(after.expires_at), Date.parse(expires));
    });

    test('roll: expires_in 0 to 7 days; outside, a wrong type, an unknown attribute → 422; unknown or other world’s key → 404; nothing changes', async () => {
      const { server, world } = suite;
      const target = await make(server, world.sandbox.key, { role: 'read' });
      const before = await keyCount(server, world.teamId);
      for (const attributes of [{ expires_in: SEVEN_DAYS + 1 }, { expires_in: -1 }, { expires_in: 1.5 }, { expires_in: '60' }, { role: 'admin' }])
        assertValidation(await call(server, 'POST', `/keys/${target.id}/roll`, { key: world.sandbox.key, body: keysDoc(attributes) }), [
          `/data/attributes/${Object.keys(attributes)[0]}`,
        ]);
      assertError(await call(server, 'POST', `/keys/${target.id}/roll`, { key: world.sandbox.key, body: { data: { type: 'tags', attributes: {} } } }), 400);
      for (const id of ['key_0000000000000000000000', 'nope', world.production.id])
        assertError(await call(server, 'POST', `/keys/${id}/roll`, { key: world.sandbox.key, body: keysDoc({}) }), 404);
      const other = await server.seedTeam({ name: 'other' });
      assertError(await call(server, 'POST', `/keys/${target.id}/roll`, { key: other.sandbox.key, body: keysDoc({}) }), 404);
      assertError(await call(server, 'DELETE', `/keys/${target.id}`, { key: other.sandbox.key }), 404);
      assert.equal(await keyCount(server, world.teamId), before);
      assert.equal((await call(server, 'GET', '/tags', { key: target.key })).status, 200);
      const longest = await call(server, 'POST', `/keys/${target.id}/roll`, { key: world.sandbox.key, body: keysDoc({ expires_in: SEVEN_DAYS }) });
      assert.equal(longest.status, 201, longest.text);
    });

    test('two rolls of one key at once: exactly one makes a key', async () => {
      const { server, world } = suite;
      const target = await make(server, world.sandbox.key, { role: 'read' });
      const before = await keyCount(server, world.teamId);
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => call(server, 'POST', `/keys/${target.id}/roll`, { key: world.sandbox.key, body: keysDoc({ expires_in: 60 }) })),
      );
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409, 409, 409, 409]);
      assert.equal(await keyCount(server, world.teamId), before + 1);
    });

    test('DELETE /keys/:id revokes at once, even a cached key; again → 204; the revoked key still listed', async () => {
      const { server, world } = suite;
      const doomed = await make(server, world.sandbox.key, { role: 'admin' });
      assert.equal((await call(server, 'GET', '/tags', { key: doomed.key })).status, 200);
      assert.equal((await call(server, 'DELETE', `/keys/${doomed.id}`, { key: world.sandbox.key })).status, 204);
      assertError(await call(server, 'GET', '/tags', { key: doomed.key }), 401);
      const first = (await call(server, 'GET', `/keys/${doomed.id}`, { key: world.sandbox.key })).body.data.attributes.revoked_at;
      assert.match(first, ISO_MICROS);
      assert.equal((await call(server, 'DELETE', `/keys/${doomed.id}`, { key: world.sandbox.key })).status, 204);
      assert.equal((await call(server, 'GET', `/keys/${doomed.id}`, { key: world.sandbox.key })).body.data.attributes.revoked_at, first);
    });

    test('an expiring key works until expires_at and is refused from then on, cached or not', async () => {
      const { server, world } = suite;
      const made = await createKey(server.ctx.db.kysely, world.teamId, 'sandbox', server.clock, {
        role: 'read',
        expiresAt: server.clock.nowMicros() + 5_000_000,
      });
      assert.equal((await call(server, 'GET', '/tags', { key: made.key })).status, 200);
      server.clock.advance(4_900);
      assert.equal((await call(server, 'GET', '/tags', { key: made.key })).status, 200);
      server.clock.advance(100);
      const refused = await call(server, 'GET', '/tags', { key: made.key });
      assertError(refused, 401);
      assert.equal(refused.body.errors[0].title, 'Missing, invalid, revoked or expired API key');
      // Not from the cache either: a fresh lookup refuses it too.
      server.ctx.principals.evict('x');
      assertError(await call(server, 'GET', '/keys/current', { key: made.key }), 401);
    });
  });
}
