// GET /teams/:id: a key reads its own team only (never a parent or subteam).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, call } from '../harness.js';
import { ISO_MICROS, assertError, assertJsonApi, sharedServer } from '../tags/helpers.js';

for (const kind of DATABASES) {
  describe(`GET /teams/:id (${kind})`, () => {
    const suite = sharedServer(kind);

    test('own team with either mode → 200 with name, parent_id and created_at', async () => {
      const { server } = suite;
      const parent = await server.seedTeam({ name: 'Acme' });
      const sub = await server.seedTeam({ name: 'Acme EU', parent: parent.teamId });
      for (const key of [sub.sandbox.key, sub.production.key]) {
        const response = await call(server, 'GET', `/teams/${sub.teamId}`, { key });
        assert.equal(response.status, 200, response.text);
        assertJsonApi(response);
        assert.equal(response.body.data.type, 'teams');
        assert.equal(response.body.data.id, sub.teamId);
        assert.deepEqual(Object.keys(response.body.data.attributes).sort(), ['created_at', 'name', 'parent_id']);
        assert.equal(response.body.data.attributes.name, 'Acme EU');
        assert.equal(response.body.data.attributes.parent_id, parent.teamId);
        assert.match(response.body.data.attributes.created_at, ISO_MICROS);
      }
      const top = await call(server, 'GET', `/teams/${parent.teamId}`, { key: parent.sandbox.key });
      assert.equal(top.body.data.attributes.parent_id, null);
      // Parent ↔ subteam and unrelated teams: 404, as are unknown and malformed ids.
      assertError(await call(server, 'GET', `/teams/${parent.teamId}`, { key: sub.sandbox.key }), 404);
      assertError(await call(server, 'GET', `/teams/${sub.teamId}`, { key: parent.sandbox.key }), 404);
      assertError(await call(server, 'GET', `/teams/${suite.world.teamId}`, { key: sub.sandbox.key }), 404);
      assertError(await call(server, 'GET', '/teams/team_0000000000000000000000', { key: sub.sandbox.key }), 404);
      assertError(await call(server, 'GET', '/teams/%00', { key: sub.sandbox.key }), 404);
      assertError(await call(server, 'GET', `/teams/${sub.teamId}`), 401);
    });
  });
}
