// GET /keys (the team's keys of the caller's mode) and GET /teams/current (the caller's team).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createKey, revoke } from '../../src/keys/service.js';
import { DATABASES, call, sharedServer } from '../kit/harness.js';
import { assertBadParameter } from '../http/query.js';
import { ISO_MICROS } from '../kit/assertions.js';
import { cliActor } from '../../src/audit/record.js';

for (const kind of DATABASES) {
  describe(`GET /keys and GET /teams/current (${kind})`, () => {
    const suite = sharedServer(kind);

    test("the team's keys of this mode, oldest first, revoked ones marked; never a secret or hash", async () => {
      const { server } = suite;
      const world = await server.seedTeam({ name: 'keys' });
      const second = await createKey(server.ctx.db.kysely, world.teamId, 'sandbox', server.clock);
      await revoke(server.ctx, second.id, cliActor());
      const response = await call(server, 'GET', '/keys', { key: world.sandbox.key });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        response.body.data.map((k: any) => k.id),
        [world.sandbox.id, second.id],
      );
      const [own, revoked] = response.body.data;
      assert.deepEqual(Object.keys(own.attributes).sort(), [
        'created_at',
        'expires_at',
        'last_used_at',
        'mode',
        'name',
        'replaced_by',
        'revoked_at',
        'role',
        'team_id',
      ]);
      assert.equal(own.type, 'keys');
      assert.deepEqual(
        { team_id: own.attributes.team_id, mode: own.attributes.mode, revoked_at: own.attributes.revoked_at },
        { team_id: world.teamId, mode: 'sandbox', revoked_at: null },
      );
      assert.match(own.attributes.created_at, ISO_MICROS);
      assert.match(revoked.attributes.revoked_at, ISO_MICROS);
      assert.ok(!response.text.includes(world.sandbox.key) && !response.text.includes(second.key) && !response.text.includes(world.production.id));
      const production = await call(server, 'GET', '/keys', { key: world.production.key });
      assert.deepEqual(
        production.body.data.map((k: any) => k.id),
        [world.production.id],
      );
      const other = await server.seedTeam();
      assert.deepEqual(
        (await call(server, 'GET', '/keys', { key: other.sandbox.key })).body.data.map((k: any) => k.id),
        [other.sandbox.id],
      );
      assertBadParameter(await call(server, 'GET', '/keys?mode=production', { key: world.sandbox.key }), 'mode');
    });

    test("GET /teams/current is the key's own team, from either mode; subteams and parents see theirs", async () => {
      const { server } = suite;
      const parent = await server.seedTeam({ name: 'parent' });
      const world = await server.seedTeam({ name: 'current', parent: parent.teamId });
      for (const key of [world.sandbox.key, world.production.key]) {
        const response = await call(server, 'GET', '/teams/current', { key });
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(
          { ...response.body.data, attributes: { ...response.body.data.attributes, created_at: undefined } },
          {
            type: 'teams',
            id: world.teamId,
            attributes: {
              name: 'current',
              parent_id: parent.teamId,
              created_at: undefined,
              signal_thresholds: { counter_gap: 5, country_jump_window: 21_600, replay_burst: 3 },
            },
          },
        );
        assert.match(response.body.data.attributes.created_at, ISO_MICROS);
      }
      assert.equal((await call(server, 'GET', '/teams/current', { key: parent.sandbox.key })).body.data.id, parent.teamId);
      assertBadParameter(await call(server, 'GET', '/teams/current?id=x', { key: world.sandbox.key }), 'id');
    });
  });
}
