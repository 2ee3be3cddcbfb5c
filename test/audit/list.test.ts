// GET /audit-events on both databases: the key's world only, newest first, each filter, keyset pages,
// every refusal naming its parameter; a refused change leaves no record.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { DATABASES, call, sharedServer, type SeededTeam } from '../kit/harness.js';
import { assertJsonApi } from '../kit/assertions.js';
import { createTags, updateDocument } from '../tags/helpers.js';

const list = (server: { base: string }, key: string, query = '') => call(server, 'GET', `/audit-events${query}`, { key });

function refusedParameter(r: { status: number; body: any; text: string }, parameter: string) {
  assert.equal(r.status, 400, r.text);
  assertJsonApi(r as never);
  assert.equal(r.body.errors.length, 1);
  assert.equal(r.body.errors[0].source.parameter, parameter);
}

for (const kind of DATABASES) {
  describe(`GET /audit-events (${kind})`, () => {
    const suite = sharedServer(kind);
    let world: SeededTeam;
    let tags: { id: string }[];

    before(async () => {
      const { server } = suite;
      world = await server.seedTeam({ name: 'audited' });
      tags = await createTags(server, world.sandbox.key, 3);
      const patched = await call(server, 'PATCH', `/tags/${tags[0]!.id}`, { key: world.sandbox.key, body: updateDocument(tags[0]!.id, { comment: 'boxed' }) });
      assert.equal(patched.status, 200, patched.text);
      // Another team's and the other mode's changes, which this key never sees.
      const other = await server.seedTeam({ name: 'other' });
      await createTags(server, other.sandbox.key, 2);
      await createTags(server, world.production.key, 1);
    });

    test('newest first: the update, then the three creations, with who, what and the changed fields', async () => {
      const r = await list(suite.server, world.sandbox.key);
      assert.equal(r.status, 200, r.text);
      assertJsonApi(r);
      const data = r.body.data;
      assert.deepEqual(
        data.map((e: any) => [e.attributes.operation, e.attributes.resource.id]),
        [['tag.update', tags[0]!.id], ...[...tags].reverse().map((t) => ['tag.create', t.id])],
      );
      const [update] = data;
      assert.equal(update.type, 'audit-events');
      assert.match(update.id, /^aud_[0-9A-Za-z]{22}$/);
      assert.deepEqual(update.attributes.actor, { type: 'key', id: world.sandbox.id });
      assert.deepEqual(update.attributes.resource, { type: 'tag', id: tags[0]!.id });
      assert.deepEqual(update.attributes.changes, { comment: { from: null, to: 'boxed' } });
      assert.equal(update.attributes.address, '127.0.0.1');
      assert.match(update.attributes.occurred_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      assert.equal(r.body.links.next, null);
      // The production key sees its own one creation only.
      const production = await list(suite.server, world.production.key);
      assert.deepEqual(
        production.body.data.map((e: any) => e.attributes.operation),
        ['tag.create'],
      );
    });

    test('filters: resource, operation, actor, since/until', async () => {
      const { server } = suite;
      const key = world.sandbox.key;
      const byResource = await list(server, key, `?resource=${tags[0]!.id}`);
      assert.deepEqual(
        byResource.body.data.map((e: any) => e.attributes.operation),
        ['tag.update', 'tag.create'],
      );
      const byOperation = await list(server, key, '?operation=tag.create');
      assert.equal(byOperation.body.data.length, 3);
      assert.equal((await list(server, key, `?actor=${world.sandbox.id}`)).body.data.length, 4);
      assert.equal((await list(server, key, '?actor=key_0000000000000000000000')).body.data.length, 0);
      assert.equal((await list(server, key, `?operation=tag.update&resource=${tags[1]!.id}`)).body.data.length, 0);
      const newest = (await list(server, key)).body.data[0].attributes.occurred_at as string;
      assert.equal((await list(server, key, `?since=${encodeURIComponent(newest)}`)).body.data.length, 1);
      assert.equal((await list(server, key, `?until=${encodeURIComponent(newest)}`)).body.data.length, 3);
      assert.equal((await list(server, key, '?until=2000-01-01')).body.data.length, 0);
    });

    test('keyset pages: page_size 1 walks all four exactly once; a cursor belongs to its query', async () => {
      const { server } = suite;
      const seen: string[] = [];
      let next: string | null = '/audit-events?page_size=1';
      while (next) {
        const r = await call(server, 'GET', next.replace(/^\/api\/v1/, ''), { key: world.sandbox.key });
        assert.equal(r.status, 200, r.text);
        assert.ok(r.body.data.length <= 1);
        seen.push(...r.body.data.map((e: any) => e.id));
        next = r.body.links.next;
      }
      assert.equal(seen.length, 4);
      assert.equal(new Set(seen).size, 4);
      const first = await list(server, world.sandbox.key, '?page_size=1');
      const cursor = new URL(first.body.links.next, 'http://x').searchParams.get('cursor')!;
      refusedParameter(await list(server, world.sandbox.key, `?page_size=2&cursor=${cursor}`), 'cursor');
      const other = await server.seedTeam({ name: 'cursor thief' });
      refusedParameter(await list(server, other.sandbox.key, `?page_size=1&cursor=${cursor}`), 'cursor');
    });

    test('refusals name the parameter: page_size 0 and 101, unknown names, operations and times, since after until', async () => {
      const { server } = suite;
      const key = world.sandbox.key;
      assert.equal((await list(server, key, '?page_size=100')).status, 200);
      assert.equal((await list(server, key, '?page_size=1')).status, 200);
      refusedParameter(await list(server, key, '?page_size=0'), 'page_size');
      refusedParameter(await list(server, key, '?page_size=101'), 'page_size');
      refusedParameter(await list(server, key, '?operation=tag.explode'), 'operation');
      refusedParameter(await list(server, key, '?operation=tag.create&operation=tag.update'), 'operation');
      refusedParameter(await list(server, key, '?actor=two%20words'), 'actor');
      refusedParameter(await list(server, key, `?resource=${'x'.repeat(201)}`), 'resource');
      assert.equal((await list(server, key, `?resource=${'x'.repeat(200)}`)).status, 200);
      refusedParameter(await list(server, key, '?since=yesterday'), 'since');
      refusedParameter(await list(server, key, '?since=2026-02-01&until=2026-01-01'), 'until');
      refusedParameter(await list(server, key, '?team_id=team_x'), 'team_id');
    });

    test('a refused change records nothing: a batch with one bad entry, a taken url', async () => {
      const { server } = suite;
      const count = async () => (await list(server, world.sandbox.key, '?page_size=100')).body.data.length;
      const before = await count();
      const bad = await call(server, 'PATCH', '/tags', {
        key: world.sandbox.key,
        body: { data: [updateDocument(tags[1]!.id, { comment: 'fine' }).data, updateDocument(tags[2]!.id, { session_duration: -1 }).data] },
      });
      assert.equal(bad.status, 422, bad.text);
      const taken = await call(server, 'POST', '/tags', {
        key: world.sandbox.key,
        body: {
          data: [
            {
              type: 'tags',
              attributes: {
                protocol: 'ntag_424_dna',
                url: (await call(server, 'GET', `/tags/${tags[1]!.id}`, { key: world.sandbox.key })).body.data.attributes.url,
              },
            },
          ],
        },
      });
      assert.equal(taken.status, 422, taken.text);
      assert.equal(await count(), before);
    });
  });
}
