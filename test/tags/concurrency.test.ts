// Concurrent writers on one world (docs/hardening.md): every interleaving of single and
// batch deletes, PATCHes (comments, url swaps) and creates with clashing urls
// leaves the invariants intact — a tag is deleted once, one tag.deleted per
// deleted tag, total_count equals the rows, urls stay unique — and no valid
// request answers 5xx (no deadlock reaches a client).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, call, type TestServer, type SeededTeam } from '../kit/harness.js';
import { batchUpdateDocument, createTags, deleteDocument, eventRows, totalCount, uniqueUrl } from './helpers.js';
import { sharedServer } from '../kit/harness.js';

async function assertInvariants(server: TestServer, world: SeededTeam): Promise<void> {
  const db = server.ctx.db.kysely;
  const rows = await db.selectFrom('tags').select(['id', 'url']).where('team_id', '=', world.teamId).where('mode', '=', 'sandbox').execute();
  assert.equal(await totalCount(server, world.sandbox.key), rows.length, 'total_count equals the rows');
  assert.equal(new Set(rows.map((r) => r.url)).size, rows.length, 'urls unique');
  const deletedEvents = await eventRows(server, 'tag.deleted', world.teamId);
  const createdEvents = await eventRows(server, 'tag.created', world.teamId);
  const deletedIds = deletedEvents.map((e) => e.tag_id);
  assert.equal(new Set(deletedIds).size, deletedIds.length, 'one tag.deleted per tag');
  const alive = new Set(rows.map((r) => r.id));
  assert.ok(
    deletedIds.every((id) => !alive.has(id)),
    'a tag announced deleted is gone',
  );
  assert.equal(createdEvents.length - deletedEvents.length, rows.length, 'created − deleted = rows');
}

const pick = <T>(items: T[], n: number): T[] => [...items].sort(() => Math.random() - 0.5).slice(0, n);

for (const kind of DATABASES) {
  describe(`concurrent writers (${kind})`, () => {
    const suite = sharedServer(kind);
    const key = () => suite.world.sandbox.key;

    test('one tag, two batch deletes and five single deletes at once, 20 rounds: deleted exactly once', async () => {
      for (let round = 0; round < 20; round++) {
        const [tag] = await createTags(suite.server, key(), 1);
        const responses = await Promise.all([
          call(suite.server, 'DELETE', '/tags', { key: key(), body: deleteDocument([tag.id]) }),
          call(suite.server, 'DELETE', '/tags', { key: key(), body: deleteDocument([tag.id]) }),
          ...Array.from({ length: 5 }, () => call(suite.server, 'DELETE', `/tags/${tag.id}`, { key: key() })),
        ]);
        const batchDeleted = responses.slice(0, 2).filter((r) => r.status === 200 && r.body.meta.deleted.includes(tag.id)).length;
        const singleDeleted = responses.slice(2).filter((r) => r.status === 204).length;
        assert.deepEqual(
          responses.slice(0, 2).map((r) => r.status),
          [200, 200],
        );
        assert.deepEqual(
          responses
            .slice(2)
            .map((r) => r.status)
            .sort(),
          [...Array(singleDeleted).fill(204), ...Array(5 - singleDeleted).fill(404)].sort(),
        );
        assert.equal(batchDeleted + singleDeleted, 1, `round ${round}: deleted once`);
      }
      await assertInvariants(suite.server, suite.world);
    });

    test('30 batch PATCHes of 20 random tags out of 100 at once: all 200, last writer visible', async () => {
      const tags = await createTags(suite.server, key(), 100);
      const responses = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          call(suite.server, 'PATCH', '/tags', {
            key: key(),
            body: batchUpdateDocument(pick(tags, 20).map((t) => ({ id: t.id, attributes: { comment: `writer ${i}` } }))),
          }),
        ),
      );
      assert.deepEqual(
        responses.map((r) => r.status),
        Array(30).fill(200),
        responses.find((r) => r.status !== 200)?.text,
      );
      await assertInvariants(suite.server, suite.world);
    });

    test('url swaps, PATCH racing DELETE, creates with clashing urls, 10 rounds: no 5xx, invariants hold', async () => {
      for (let round = 0; round < 10; round++) {
        const tags = await createTags(suite.server, key(), 10);
        const clash = uniqueUrl('clash');
        const work = [
          // Swaps of url pairs, overlapping each other.
          ...[0, 2, 4].map((i) =>
            call(suite.server, 'PATCH', '/tags', {
              key: key(),
              body: batchUpdateDocument([
                { id: tags[i].id, attributes: { url: tags[i + 1].attributes.url } },
                { id: tags[i + 1].id, attributes: { url: tags[i].attributes.url } },
              ]),
            }),
          ),
          call(suite.server, 'PATCH', '/tags', {
            key: key(),
            body: batchUpdateDocument([
              { id: tags[1].id, attributes: { url: tags[2].attributes.url } },
              { id: tags[2].id, attributes: { url: tags[1].attributes.url } },
            ]),
          }),
          call(suite.server, 'DELETE', '/tags', { key: key(), body: deleteDocument([tags[0].id, tags[5].id, tags[9].id]) }),
          call(suite.server, 'DELETE', `/tags/${tags[5].id}`, { key: key() }),
          call(suite.server, 'PATCH', `/tags/${tags[9].id}`, { key: key(), body: { data: { type: 'tags', id: tags[9].id, attributes: { comment: 'late' } } } }),
          call(suite.server, 'PATCH', `/tags/${tags[8].id}`, { key: key(), body: { data: { type: 'tags', id: tags[8].id, attributes: { url: clash } } } }),
          call(suite.server, 'POST', '/tags', { key: key(), body: { data: [{ type: 'tags', attributes: { url: clash, protocol: 'ntag_424_dna' } }] } }),
          call(suite.server, 'POST', '/tags', { key: key(), body: { data: [{ type: 'tags', attributes: { url: clash, protocol: 'ntag_424_dna' } }] } }),
        ];
        const responses = await Promise.all(work);
        for (const r of responses) assert.ok(r.status < 500, `round ${round}: ${r.status} ${r.text}`);
        // Exactly one of the three claims on `clash` won.
        const clashWins = [responses[7]!.status === 200, responses[8]!.status === 201, responses[9]!.status === 201].filter(Boolean).length;
        assert.equal(clashWins, 1, `round ${round}: one owner of the clashing url`);
      }
      await assertInvariants(suite.server, suite.world);
    });
  });
}
