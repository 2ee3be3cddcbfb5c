// What other worlds see of a tag, beyond the route matrix (route-matrix.test.ts): not in
// their lists nor their searches, not deleted by their bulk deletes, and creates land in
// the caller's own world only.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { DATABASES, call, type SeededTeam } from '../kit/harness.js';
import { batchUpdateDocument, createTag, deleteDocument, updateDocument } from '../tags/helpers.js';
import { assertError } from '../kit/assertions.js';
import { sharedServer } from '../kit/harness.js';

for (const kind of DATABASES) {
  describe(`tag visibility across worlds (${kind})`, () => {
    const suite = sharedServer(kind);
    /** The owner's sandbox tag, and every other world that must not see it. */
    let tag: any;
    let team: SeededTeam;
    let outsiders: Record<string, string>;

    before(async () => {
      const { server } = suite;
      const parent = await server.seedTeam({ name: 'parent' });
      team = await server.seedTeam({ name: 'team', parent: parent.teamId });
      const sub = await server.seedTeam({ name: 'sub', parent: team.teamId });
      const other = await server.seedTeam({ name: 'other' });
      tag = await createTag(server, team.sandbox.key, { comment: 'secret' });
      outsiders = { 'other team': other.sandbox.key, subteam: sub.sandbox.key, 'parent team': parent.sandbox.key, 'other mode': team.production.key };
    });

    test('the scheme is case-insensitive and the owner passes on every route', async () => {
      const { server } = suite;
      const response = await call(server, 'GET', `/tags/${tag.id}`, { headers: { authorization: `bearer ${team.sandbox.key}` } });
      assert.equal(response.status, 200);
    });

    test('other team, subteam, parent team, other mode → 404 on single-resource routes, nothing changed', async () => {
      const { server } = suite;
      for (const [who, key] of Object.entries(outsiders)) {
        for (const method of ['GET', 'PATCH', 'DELETE']) {
          const body = method === 'PATCH' ? updateDocument(tag.id, { comment: 'x' }) : undefined;
          assertError(await call(server, method, `/tags/${tag.id}`, { key, body }), 404);
        }
        // PATCH /tags naming the tag: 404 as well.
        assertError(await call(server, 'PATCH', '/tags', { key, body: batchUpdateDocument([{ id: tag.id, attributes: { comment: 'x' } }]) }), 404);
        // DELETE /tags ignores it.
        const deleted = await call(server, 'DELETE', '/tags', { key, body: deleteDocument([tag.id]) });
        assert.equal(deleted.status, 200, `${who}: ${deleted.text}`);
        assert.deepEqual(deleted.body.meta, { deleted: [], kept: [] });
        // The list does not show it, neither by q on its id nor by its comment.
        for (const query of ['', `?q=${tag.id}`, '?q=secret', '?page_size=100']) {
          const listed = await call(server, 'GET', `/tags${query}`, { key });
          assert.equal(listed.status, 200);
          assert.ok(!listed.body.data.some((t: any) => t.id === tag.id), `${who} lists the tag with ${query}`);
        }
        // The team is not theirs (the other mode's key belongs to it), nor the sandbox key.
        if (who === 'other mode') assert.equal((await call(server, 'GET', `/teams/${team.teamId}`, { key })).status, 200);
        else assertError(await call(server, 'GET', `/teams/${team.teamId}`, { key }), 404);
        assertError(await call(server, 'GET', `/keys/${team.sandbox.id}`, { key }), 404);
      }
      const got = await call(server, 'GET', `/tags/${tag.id}`, { key: team.sandbox.key });
      assert.deepEqual(got.body.data, tag);
    });

    test('a key creates in its own world only', async () => {
      const { server } = suite;
      const created = await createTag(server, team.production.key);
      assertError(await call(server, 'GET', `/tags/${created.id}`, { key: team.sandbox.key }), 404);
      assert.equal((await call(server, 'GET', `/tags/${created.id}`, { key: team.production.key })).status, 200);
      const rows = await server.ctx.db.kysely.selectFrom('tags').select(['team_id', 'mode']).where('id', '=', created.id).execute();
      assert.deepEqual(rows, [{ team_id: team.teamId, mode: 'production' }]);
    });
  });
}
