// GET /keys/:id: a key reads the keys of its own team and mode, never a secret or hash.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { hashKeyText } from '../../src/keys/key-text.js';
import { createKey, revoke } from '../../src/keys/service.js';
import { runCli } from '../cli/process.js';
import { DATABASES, call, type TestServer } from '../kit/harness.js';
import { ISO_MICROS, assertError, assertJsonApi } from '../kit/assertions.js';
import { sharedServer } from '../kit/harness.js';
import { cliActor } from '../../src/audit/record.js';

/** Uses `key` until the server serves it from its principal cache (PostgreSQL: once its LISTEN is up). */
async function untilCached(server: TestServer, key: string): Promise<void> {
  const cache = server.ctx.principals;
  for (let i = 0; i < 200; i++) {
    assert.equal((await call(server, 'GET', '/tags', { key })).status, 200);
    if (cache.get(hashKeyText(key)) !== undefined) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail('the key never got cached');
}

for (const kind of DATABASES) {
  describe(`revoked keys and the principal cache (${kind})`, () => {
    const suite = sharedServer(kind);

    test('a cached key revoked by the CLI while the server runs is refused on the very next request', async () => {
      const { server, world } = suite;
      const doomed = await createKey(server.ctx.db.kysely, world.teamId, 'sandbox', server.ctx.clock);
      await untilCached(server, doomed.key);
      await untilCached(server, world.sandbox.key);
      const result = await runCli(server.storage.env, 'keys', 'revoke', doomed.id, '--json');
      assert.equal(result.code, 0, result.stderr);
      assertError(await call(server, 'GET', '/tags', { key: doomed.key }), 401);
      assertError(await call(server, 'GET', `/keys/${doomed.id}`, { key: doomed.key }), 401);
      assert.equal((await call(server, 'GET', '/tags', { key: world.sandbox.key })).status, 200, 'the other key still works');
    });

    test('a cached key revoked in process is refused on the very next request', async () => {
      const { server, world } = suite;
      const doomed = await createKey(server.ctx.db.kysely, world.teamId, 'production', server.ctx.clock);
      await untilCached(server, doomed.key);
      await revoke(server.ctx, doomed.id, cliActor());
      assertError(await call(server, 'GET', '/tags', { key: doomed.key }), 401);
    });
  });

  describe(`GET /keys/:id (${kind})`, () => {
    const suite = sharedServer(kind);

    test('own key and a sibling key of the same world → 200 without the secret or its hash', async () => {
      const { server, world } = suite;
      const sibling = await createKey(server.ctx.db.kysely, world.teamId, 'sandbox', server.ctx.clock);
      await revoke(server.ctx, sibling.id, cliActor());
      for (const target of [world.sandbox, sibling]) {
        const response = await call(server, 'GET', `/keys/${target.id}`, { key: world.sandbox.key });
        assert.equal(response.status, 200, response.text);
        assertJsonApi(response);
        assert.equal(response.body.data.type, 'keys');
        assert.equal(response.body.data.id, target.id);
        const a = response.body.data.attributes;
        assert.deepEqual(Object.keys(a).sort(), ['created_at', 'expires_at', 'last_used_at', 'mode', 'name', 'replaced_by', 'revoked_at', 'role', 'team_id']);
        assert.equal(a.team_id, world.teamId);
        assert.equal(a.mode, 'sandbox');
        assert.match(a.created_at, ISO_MICROS);
        assert.ok(!response.text.includes(target.key), 'no secret');
        assert.ok(!response.text.includes(target.key.slice(11)), 'no part of the secret');
        assert.ok(!response.text.includes(createHash('sha256').update(target.key).digest('hex')), 'no hash');
        assert.ok(!/tp_(sandbox|live)_/.test(response.text));
      }
      assert.equal((await call(server, 'GET', `/keys/${world.sandbox.id}`, { key: world.sandbox.key })).body.data.attributes.revoked_at, null);
      assert.match((await call(server, 'GET', `/keys/${sibling.id}`, { key: world.sandbox.key })).body.data.attributes.revoked_at, ISO_MICROS);
      // The revoked key itself no longer authenticates.
      assertError(await call(server, 'GET', `/keys/${sibling.id}`, { key: sibling.key }), 401);
    });

    test('the other mode, other teams, subteams, unknown and malformed ids → 404', async () => {
      const { server, world } = suite;
      const sub = await server.seedTeam({ parent: world.teamId });
      const production = await call(server, 'GET', `/keys/${world.production.id}`, { key: world.production.key });
      assert.equal(production.body.data.attributes.mode, 'production');
      assertError(await call(server, 'GET', `/keys/${world.production.id}`, { key: world.sandbox.key }), 404);
      assertError(await call(server, 'GET', `/keys/${world.sandbox.id}`, { key: world.production.key }), 404);
      assertError(await call(server, 'GET', `/keys/${sub.sandbox.id}`, { key: world.sandbox.key }), 404);
      assertError(await call(server, 'GET', `/keys/${world.sandbox.id}`, { key: sub.sandbox.key }), 404);
      assertError(await call(server, 'GET', '/keys/key_0000000000000000000000', { key: world.sandbox.key }), 404);
      assertError(await call(server, 'GET', '/keys/%00', { key: world.sandbox.key }), 404);
      assertError(await call(server, 'GET', `/keys/${world.sandbox.id}`), 401);
    });
  });
}
