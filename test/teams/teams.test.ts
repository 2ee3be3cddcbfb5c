// GET /teams/:id: a key reads its own team only (never a parent or subteam).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTeam } from '../../src/teams/service.js';
import { DATABASES, call } from '../kit/harness.js';
import { ISO_MICROS, assertError, assertJsonApi } from '../kit/assertions.js';
import { sharedServer } from '../kit/harness.js';

for (const kind of DATABASES) {
  describe(`GET /teams/:id (${kind})`, () => {
    const suite = sharedServer(kind);

    test('a team name with a control character or a lone surrogate is refused, nothing stored', async () => {
      const db = suite.server.ctx.db.kysely;
      const count = async () =>
        Number(
          (
            await db
              .selectFrom('teams')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      await assert.rejects(createTeam(db, 'Acme\u0000EU', null, suite.server.ctx.clock), {
        message: 'team name must not contain control characters (U+0000 to U+001F, U+007F)',
      });
      await assert.rejects(createTeam(db, 'Acme\nEU', null, suite.server.ctx.clock), {
        message: 'team name must not contain control characters (U+0000 to U+001F, U+007F)',
      });
      await assert.rejects(createTeam(db, 'Acme \ud800', null, suite.server.ctx.clock), {
        message: 'team name must be well-formed Unicode (no lone UTF-16 surrogates)',
      });
      assert.equal(await count(), before);
      await createTeam(db, 'Acme Café 😀', null, suite.server.ctx.clock);
      assert.equal(await count(), before + 1);
    });

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
        assert.deepEqual(Object.keys(response.body.data.attributes).sort(), ['created_at', 'name', 'parent_id', 'signal_thresholds']);
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
