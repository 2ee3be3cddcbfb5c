// DELETE /tags/:id and DELETE /tags.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, call } from '../kit/harness.js';
import { configure, createTag, createTags, deleteDocument, eventRows, totalCount } from './helpers.js';
import { assertError, assertJsonApi } from '../kit/assertions.js';
import { sharedServer } from '../kit/harness.js';

const MISSING = 'tag_0000000000000000000000';

for (const kind of DATABASES) {
  describe(`DELETE /tags (${kind})`, () => {
    const suite = sharedServer(kind);

    const get = (id: string) => call(suite.server, 'GET', `/tags/${id}`, { key: suite.world.sandbox.key });
    const deleteMany = (body: unknown, key = suite.world.sandbox.key) => call(suite.server, 'DELETE', '/tags', { key, body });

    test('DELETE /tags/:id → 204 with an empty body, a tag.deleted event, then 404', async () => {
      const tag = await createTag(suite.server, suite.world.sandbox.key);
      const response = await call(suite.server, 'DELETE', `/tags/${tag.id}`, { key: suite.world.sandbox.key });
      assert.equal(response.status, 204);
      assert.equal(response.text, '');
      assertError(await get(tag.id), 404);
      const events = (await eventRows(suite.server, 'tag.deleted', suite.world.teamId)).filter((e) => e.tag_id === tag.id);
      assert.equal(events.length, 1);
      const payload = JSON.parse(events[0].payload);
      assert.equal(payload.type, 'tag.deleted');
      assert.deepEqual(payload.data, tag);
      assertError(await call(suite.server, 'DELETE', `/tags/${tag.id}`, { key: suite.world.sandbox.key }), 404);
      assertError(await call(suite.server, 'DELETE', `/tags/${MISSING}`, { key: suite.world.sandbox.key }), 404);
      assertError(await call(suite.server, 'DELETE', '/tags/not-an-id', { key: suite.world.sandbox.key }), 404);
      assert.equal((await eventRows(suite.server, 'tag.deleted', suite.world.teamId)).filter((e) => e.tag_id === tag.id).length, 1);
    });

    test('DELETE /tags/:id of a configured tag → 409, the tag is kept, no event', async () => {
      const tag = await createTag(suite.server, suite.world.sandbox.key);
      await configure(suite.server, suite.world, tag.id);
      const response = await call(suite.server, 'DELETE', `/tags/${tag.id}`, { key: suite.world.sandbox.key });
      assertError(response, 409);
      assert.equal((await get(tag.id)).body.data.attributes.status, 'configured');
      assert.equal((await eventRows(suite.server, 'tag.deleted', suite.world.teamId)).filter((e) => e.tag_id === tag.id).length, 0);
    });

    test('DELETE /tags: meta.deleted and meta.kept; foreign and unknown ids ignored', async () => {
      const fresh = await suite.server.seedTeam();
      const tags = await createTags(suite.server, fresh.sandbox.key, 4);
      await configure(suite.server, fresh, tags[1].id);
      const other = await suite.server.seedTeam();
      const foreign = await createTag(suite.server, other.sandbox.key);
      const ownProduction = await createTag(suite.server, fresh.production.key);
      const response = await deleteMany(deleteDocument([tags[0].id, tags[1].id, foreign.id, MISSING, tags[3].id, ownProduction.id]), fresh.sandbox.key);
      assert.equal(response.status, 200, response.text);
      assertJsonApi(response);
      assert.deepEqual(response.body, { meta: { deleted: [tags[0].id, tags[3].id], kept: [tags[1].id] } });
      assert.equal(await totalCount(suite.server, fresh.sandbox.key), 2);
      const events = await eventRows(suite.server, 'tag.deleted', fresh.teamId);
      assert.deepEqual(events.map((e) => e.tag_id).sort(), [tags[0].id, tags[3].id].sort());
      // Foreign tags and the other mode's tag are untouched.
      assert.equal((await call(suite.server, 'GET', `/tags/${foreign.id}`, { key: other.sandbox.key })).status, 200);
      assert.equal((await call(suite.server, 'GET', `/tags/${ownProduction.id}`, { key: fresh.production.key })).status, 200);
      // A repeat deletes nothing more and keeps the configured tag.
      const again = await deleteMany(deleteDocument([tags[0].id, tags[1].id]), fresh.sandbox.key);
      assert.deepEqual(again.body, { meta: { deleted: [], kept: [tags[1].id] } });
    });

    test('DELETE /tags: empty list, > 500 entries, malformed ids or shapes → 400, nothing deleted', async () => {
      const fresh = await suite.server.seedTeam();
      const tags = await createTags(suite.server, fresh.sandbox.key, 500);
      const ids = tags.map((t) => t.id);
      for (const body of [
        { data: [] },
        deleteDocument([...ids, MISSING]),
        deleteDocument([ids[0], 'tag_short']),
        deleteDocument([ids[0], 'team_0000000000000000000000']),
        deleteDocument([ids[0], 'tag_000000000000000000000!']),
        { data: [{ type: 'tags', id: 5 }] },
        { data: [{ type: 'tags' }] },
        { data: [{ type: 'teams', id: ids[0] }] },
        { data: { type: 'tags', id: ids[0] } },
        {},
      ]) {
        assertError(await deleteMany(body, fresh.sandbox.key), 400);
      }
      assert.equal(await totalCount(suite.server, fresh.sandbox.key), 500);
      assert.equal((await eventRows(suite.server, 'tag.deleted', fresh.teamId)).length, 0);
      // 1 and 500 entries are fine.
      assert.deepEqual((await deleteMany(deleteDocument([ids[0]]), fresh.sandbox.key)).body.meta.deleted, [ids[0]]);
      const all = await deleteMany(deleteDocument([...ids.slice(1), ids[0]]), fresh.sandbox.key);
      assert.equal(all.status, 200, all.text);
      assert.deepEqual(all.body.meta, { deleted: ids.slice(1), kept: [] });
      assert.equal(await totalCount(suite.server, fresh.sandbox.key), 0);
      assert.equal((await eventRows(suite.server, 'tag.deleted', fresh.teamId)).length, 500);
    });

    test('DELETE /tags with a repeated id deletes it once', async () => {
      const tag = await createTag(suite.server, suite.world.sandbox.key);
      const response = await deleteMany(deleteDocument([tag.id, tag.id]));
      assert.equal(response.status, 200);
      assert.deepEqual(response.body.meta, { deleted: [tag.id], kept: [] });
      assert.equal((await eventRows(suite.server, 'tag.deleted', suite.world.teamId)).filter((e) => e.tag_id === tag.id).length, 1);
    });
  });
}
