// GET /tags: paging, page_size cap, q, order_by[] / order_directions[] with the id tie-break.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES, call, startServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { assertTag, configure, createTag, createTags, updateDocument, uniqueUrl } from './helpers.js';
import { assertError, assertJsonApi } from '../kit/assertions.js';
import { assertBadParameter } from '../http/query.js';

const FIELDS = ['id', 'protocol', 'inserted_at', 'updated_at', 'configured_at', 'comment', 'url', 'status'] as const;
type Field = (typeof FIELDS)[number];
type Term = [Field, 'asc' | 'desc'];

const valueOf = (tag: any, field: Field) => (field === 'id' ? tag.id : tag.attributes[field]);

/** The expected order: NULL is the smallest value, strings in byte order, the id breaks ties in the first term's direction. */
function sorted(tags: any[], terms: Term[]): string[] {
  const cmp = (a: unknown, b: unknown) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : (a as string | number) < (b as string | number) ? -1 : 1);
  return [...tags]
    .sort((x, y) => {
      for (const [field, direction] of terms) {
        const c = cmp(valueOf(x, field), valueOf(y, field));
        if (c !== 0) return direction === 'asc' ? c : -c;
      }
      const c = cmp(x.id, y.id);
      return terms[0][1] === 'asc' ? c : -c;
    })
    .map((t) => t.id);
}

const orderQuery = (terms: Term[]) => terms.map(([f, d]) => `order_by[]=${f}&order_directions[]=${d}`).join('&');

for (const kind of DATABASES) {
  describe(`GET /tags (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    /** Every tag of `world`'s sandbox, as GET /tags/:id shows it after set-up. */
    let all: any[];

    const list = (query = '', key = world.sandbox.key) => call(server, 'GET', `/tags${query ? '?' + query : ''}`, { key });

    /** Every page of a walk, concatenated; asserts meta on each page. */
    async function walk(query: string, pageSize: number): Promise<string[]> {
      const ids: string[] = [];
      for (let page = 1; ; page++) {
        const response = await list(`${query}&page=${page}&page_size=${pageSize}`);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body.meta, { total_count: all.length, page, page_size: pageSize });
        ids.push(...response.body.data.map((t: any) => t.id));
        if (response.body.data.length < pageSize) break;
      }
      return ids;
    }

    before(async () => {
      server = await startServer(kind);
      world = await server.seedTeam();
      // Three batches (tags of one batch share inserted_at), mixed protocols, repeated and null comments.
      const comments = [null, 'Alpha', 'alpha', 'beta', null, 'Beta box', 'gamma', 'alpha', '100% pure', 'under_score'];
      const protocols = ['ntag_424_dna', 'ntag_223_dna', 'ntag_424_dna_tag_tamper'];
      for (let batch = 0; batch < 3; batch++) {
        await createTags(
          server,
          world.sandbox.key,
          Array.from({ length: 8 }, (_, i) => ({
            protocol: protocols[(i + batch) % 3],
            comment: comments[(i + batch * 3) % comments.length],
            url: `https://example.test/list/${((batch * 8 + i) * 7) % 24}`,
          })),
        );
      }
      let ids = (await list('page_size=100')).body.data.map((t: any) => t.id);
      // Some configured (configured_at set), some edited (updated_at moves).
      for (const id of [ids[3], ids[11], ids[17]]) await configure(server, world, id);
      for (const id of [ids[0], ids[5], ids[20]]) {
        const r = await call(server, 'PATCH', `/tags/${id}`, { key: world.sandbox.key, body: updateDocument(id, { session_duration: 30 }) });
        assert.equal(r.status, 200);
      }
      ids = (await list('page_size=100')).body.data.map((t: any) => t.id);
      all = [];
      for (const id of ids) all.push((await call(server, 'GET', `/tags/${id}`, { key: world.sandbox.key })).body.data);
      // Tags elsewhere never show up: the production world, another team, a subteam.
      await createTags(server, world.production.key, 2);
      await createTags(server, (await server.seedTeam()).sandbox.key, 2);
      await createTags(server, (await server.seedTeam({ parent: world.teamId })).sandbox.key, 2);
    });
    after(() => server.close());

    test('default: page 1, page_size 10, updated_at descending, meta', async () => {
      const response = await list();
      assert.equal(response.status, 200);
      assertJsonApi(response);
      assert.deepEqual(Object.keys(response.body).sort(), ['data', 'meta']);
      assert.deepEqual(response.body.meta, { total_count: 24, page: 1, page_size: 10 });
      assert.equal(response.body.data.length, 10);
      response.body.data.forEach((t: any) => assertTag(t));
      assert.deepEqual(
        response.body.data.map((t: any) => t.id),
        sorted(all, [['updated_at', 'desc']]).slice(0, 10),
      );
      assert.deepEqual(
        (await list('page=3')).body.data.map((t: any) => t.id),
        sorted(all, [['updated_at', 'desc']]).slice(20),
      );
      assert.deepEqual((await list('page=3')).body.meta, { total_count: 24, page: 3, page_size: 10 });
    });

    test('a page past the end is empty and keeps total_count', async () => {
      const response = await list('page=4');
      assert.deepEqual(response.body, { data: [], meta: { total_count: 24, page: 4, page_size: 10 } });
      assert.deepEqual((await list('page=999999')).body.data, []);
    });

    test('every order_by field in both directions, with the id breaking ties', async () => {
      for (const field of FIELDS) {
        for (const direction of ['asc', 'desc'] as const) {
          const response = await list(`${orderQuery([[field, direction]])}&page_size=100`);
          assert.equal(response.status, 200, response.text);
          assert.deepEqual(
            response.body.data.map((t: any) => t.id),
            sorted(all, [[field, direction]]),
            `${field} ${direction}`,
          );
        }
      }
    });

    test('order_directions defaults to asc; several order_by terms combine', async () => {
      const plain = await list('order_by[]=comment&page_size=100');
      assert.deepEqual(
        plain.body.data.map((t: any) => t.id),
        sorted(all, [['comment', 'asc']]),
      );
      const combos: Term[][] = [
        [
          ['protocol', 'asc'],
          ['comment', 'desc'],
        ],
        [
          ['status', 'desc'],
          ['inserted_at', 'asc'],
          ['url', 'desc'],
        ],
        [
          ['comment', 'asc'],
          ['configured_at', 'desc'],
        ],
      ];
      for (const terms of combos) {
        const response = await list(`${orderQuery(terms)}&page_size=100`);
        assert.deepEqual(
          response.body.data.map((t: any) => t.id),
          sorted(all, terms),
          JSON.stringify(terms),
        );
      }
      // Fewer directions than fields: the rest are asc.
      const partial = await list('order_by[]=status&order_by[]=comment&order_directions[]=desc&page_size=100');
      assert.deepEqual(
        partial.body.data.map((t: any) => t.id),
        sorted(all, [
          ['status', 'desc'],
          ['comment', 'asc'],
        ]),
      );
    });

    test('a walk over all pages yields each tag exactly once, for every order', async () => {
      for (const field of FIELDS) {
        for (const direction of ['asc', 'desc'] as const) {
          const ids = await walk(orderQuery([[field, direction]]), 7);
          assert.deepEqual(ids, sorted(all, [[field, direction]]), `${field} ${direction}`);
        }
      }
      const ids = await walk('', 5);
      assert.equal(new Set(ids).size, all.length);
      assert.deepEqual(ids, sorted(all, [['updated_at', 'desc']]));
    });

    test('q matches a comment substring (case-insensitive) or an exact id', async () => {
      const byComment = (pred: (c: string | null) => boolean) =>
        all
          .filter((t) => pred(t.attributes.comment))
          .map((t) => t.id)
          .sort();
      const ids = async (q: string) => {
        const response = await list(`q=${encodeURIComponent(q)}&page_size=100&order_by[]=id`);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.meta.total_count, response.body.data.length);
        return response.body.data.map((t: any) => t.id);
      };
      assert.deepEqual(
        await ids('alpha'),
        byComment((c) => c !== null && c.toLowerCase().includes('alpha')),
      );
      assert.deepEqual(
        await ids('ET'),
        byComment((c) => c !== null && c.toLowerCase().includes('et')),
      );
      assert.deepEqual(
        await ids('A B'),
        byComment((c) => c === 'Beta box'),
      );
      // LIKE metacharacters are literal.
      assert.deepEqual(
        await ids('%'),
        byComment((c) => c === '100% pure'),
      );
      assert.deepEqual(
        await ids('_'),
        byComment((c) => c === 'under_score'),
      );
      assert.deepEqual(await ids('nothing like it'), []);
      const target = all[7];
      assert.deepEqual(await ids(target.id), [target.id]);
      // Only the exact id: a prefix of it matches nothing (ids are not in comments).
      assert.deepEqual(await ids(target.id.slice(0, -1)), []);
      assert.deepEqual(await ids(target.id.toLowerCase() === target.id ? target.id.toUpperCase() : target.id.toLowerCase()), []);
      // A foreign tag's id is not found.
      const foreign = await createTag(server, (await server.seedTeam()).sandbox.key);
      assert.deepEqual(await ids(foreign.id), []);
      // q with paging.
      const paged = await list('q=alpha&page_size=1&page=2');
      assert.equal(paged.body.data.length, 1);
      assert.equal(paged.body.meta.total_count, byComment((c) => c !== null && c.toLowerCase().includes('alpha')).length);
      // An empty q lists everything.
      assert.equal((await list('q=')).body.meta.total_count, 24);
    });

    test('status filters created or configured tags, with total_count, paging and order', async () => {
      for (const status of ['created', 'configured'] as const) {
        const expected = sorted(
          all.filter((t) => t.attributes.status === status),
          [['updated_at', 'desc']],
        );
        const response = await list(`status=${status}&page_size=100`);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(
          response.body.data.map((t: any) => t.id),
          expected,
        );
        assert.equal(response.body.meta.total_count, expected.length);
        assert.deepEqual(
          (await list(`status=${status}&page_size=2&page=2`)).body.data.map((t: any) => t.id),
          expected.slice(2, 4),
        );
      }
      assert.equal((await list('status=configured')).body.meta.total_count, 3);
      const configuredAlpha = all.filter((t) => t.attributes.status === 'configured' && (t.attributes.comment ?? '').toLowerCase().includes('alpha'));
      assert.equal((await list('status=configured&q=alpha')).body.meta.total_count, configuredAlpha.length);
      for (const query of ['status=deleted', 'status=Created', 'status=', 'status=created&status=configured']) assertBadParameter(await list(query), 'status');
    });

    test('an unknown query parameter → 400 naming it', async () => {
      for (const name of ['sort', 'filter[status]', 'pagesize', 'cursor']) assertBadParameter(await list(`${name}=1`), name);
    });

    test('bad query values → 400', async () => {
      for (const query of [
        'page=0',
        'page=-1',
        'page=abc',
        'page=1.5',
        'page=',
        'page_size=0',
        'page_size=-5',
        'page_size=ten',
        'page_size=2.5',
        'order_by[]=size',
        'order_by[]=session_duration',
        'order_by[]=id&order_directions[]=up',
        'order_by[]=id&order_directions[]=ASC',
        'order_directions[]=asc',
        'order_by[]=id&order_directions[]=asc&order_directions[]=desc',
        'order_by[]=id&order_by[]=id',
      ]) {
        assertError(await list(query), 400);
      }
      for (const query of ['q=a&q=b', 'q=%00']) assertBadParameter(await list(query), 'q');
    });
  });

  describe(`GET /tags page_size cap and live list (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    before(async () => {
      server = await startServer(kind);
      world = await server.seedTeam();
      await createTags(server, world.sandbox.key, 105);
    });
    after(() => server.close());

    test('page_size 100 is served; 101 yields 100', async () => {
      const hundred = await call(server, 'GET', '/tags?page_size=100', { key: world.sandbox.key });
      assert.equal(hundred.body.data.length, 100);
      assert.deepEqual(hundred.body.meta, { total_count: 105, page: 1, page_size: 100 });
      const over = await call(server, 'GET', '/tags?page_size=101', { key: world.sandbox.key });
      assert.equal(over.status, 200);
      assert.equal(over.body.data.length, 100);
      assert.deepEqual(over.body.meta, { total_count: 105, page: 1, page_size: 100 });
      const huge = await call(server, 'GET', '/tags?page_size=100000&page=2', { key: world.sandbox.key });
      assert.equal(huge.body.data.length, 5);
      assert.deepEqual(huge.body.meta, { total_count: 105, page: 2, page_size: 100 });
      assert.equal((await call(server, 'GET', '/tags?page_size=1', { key: world.sandbox.key })).body.data.length, 1);
    });

    test('the list is live: an edited or new tag moves to the front', async () => {
      const last = (await call(server, 'GET', '/tags?page=11', { key: world.sandbox.key })).body.data.at(-1);
      const edited = await call(server, 'PATCH', `/tags/${last.id}`, { key: world.sandbox.key, body: updateDocument(last.id, { comment: 'bump' }) });
      assert.equal(edited.status, 200);
      assert.equal((await call(server, 'GET', '/tags', { key: world.sandbox.key })).body.data[0].id, last.id);
      const fresh = await createTag(server, world.sandbox.key, { url: uniqueUrl() });
      const first = await call(server, 'GET', '/tags', { key: world.sandbox.key });
      assert.equal(first.body.data[0].id, fresh.id);
      assert.equal(first.body.meta.total_count, 106);
    });
  });
}
