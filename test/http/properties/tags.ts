// Tags: create, list with any query, change, delete (one and batches), and reads by any id.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { call } from '../../kit/harness.js';
import { assertTag } from '../../tags/helpers.js';
import { RUNS, shapedId, junkId, pick, fromPool, forget, rarely, tagEntry, tagAttributes, maybeJunk, judge, type PropertySuite } from './kit.js';

export function tagProperties(p: PropertySuite): void {
  const { suite, tally, tags, urls, s, key, property, freshTags, readsBack, idChoice, resolveId, pathOf } = p;
  test('POST /tags, then GET /tags/:id returns exactly what was created', async (t) => {
    const arbitrary = fc.record({ entries: fc.array(tagEntry, { minLength: 1, maxLength: 3 }), junk: maybeJunk, empty: rarely(fc.constant(true), 40) });
    await property(t, ['POST /tags', 'GET /tags/:id'], RUNS.write, arbitrary, async ({ entries, junk, empty }) => {
      const sent = entries.map((e) => tagAttributes(e, urls));
      const body = junk ?? { data: empty ? [] : sent.map((attributes) => ({ type: 'tags', attributes })) };
      const r = await call(s(), 'POST', '/tags', { key: key(), body });
      judge(tally, 'POST /tags', r);
      if (r.status !== 201) return;
      assert.equal(r.body.data.length, sent.length);
      for (const [i, created] of (r.body.data as any[]).entries()) {
        const a = sent[i]!;
        assertTag(created, {
          protocol: a.protocol,
          url: a.url,
          comment: a.comment ?? null,
          session_duration: a.session_duration ?? 600,
          status: 'created',
          configured_at: null,
        });
        await readsBack('GET /tags/:id', `/tags/${created.id}`, created);
        tags.push(created.id);
        urls.push(created.attributes.url);
      }
    });
  });

  test('GET /tags with any query', async (t) => {
    const field = fc.constantFrom('id', 'protocol', 'inserted_at', 'updated_at', 'configured_at', 'comment', 'url', 'status');
    const arbitrary = fc.record({
      page: fc.option(
        fc.oneof(
          { weight: 20, arbitrary: fc.integer({ min: 1, max: 4 }).map(String) },
          { weight: 1, arbitrary: fc.constantFrom('0', '-1', 'x', '1.5', '', '99999999999999999999') },
        ),
        { nil: undefined },
      ),
      page_size: fc.option(
        fc.oneof({ weight: 20, arbitrary: fc.integer({ min: 1, max: 100 }).map(String) }, { weight: 1, arbitrary: fc.constantFrom('0', '101', 'ten', '') }),
        { nil: undefined },
      ),
      q: fc.option(
        fc.oneof(
          fc.string({ unit: 'grapheme', maxLength: 6 }),
          pick.map((i) => fromPool(tags, i) ?? 'x'),
          fc.string({ unit: 'binary', maxLength: 6 }),
        ),
        { nil: undefined },
      ),
      order: fc.uniqueArray(
        fc.tuple(
          fc.oneof({ weight: 20, arbitrary: field }, { weight: 1, arbitrary: fc.constantFrom('size', '', 'ID') }),
          fc.oneof({ weight: 20, arbitrary: fc.constantFrom('asc', 'desc') }, { weight: 1, arbitrary: fc.constantFrom('up', 'ASC') }),
        ),
        { maxLength: 2, selector: ([f]) => f },
      ),
      directions: fc.oneof({ weight: 20, arbitrary: fc.constant('paired') }, { weight: 1, arbitrary: fc.constantFrom('none', 'extra') }),
    });
    await property(t, ['GET /tags'], RUNS.cheap, arbitrary, async (c) => {
      const parts: string[] = [];
      for (const name of ['page', 'page_size', 'q'] as const) if (c[name] !== undefined) parts.push(`${name}=${pathOf(c[name]!)}`);
      for (const [f] of c.order) parts.push(`order_by[]=${encodeURIComponent(f)}`);
      if (c.directions !== 'none') for (const [, d] of c.order) parts.push(`order_directions[]=${d}`);
      if (c.directions === 'extra') parts.push('order_directions[]=asc');
      const r = await call(s(), 'GET', `/tags?${parts.join('&')}`, { key: key() });
      judge(tally, 'GET /tags', r);
      if (r.status !== 200) return;
      // page_size above 100 is capped, not refused (docs/api.md#tags).
      const size = Math.min(Number(c.page_size ?? 10), 100);
      assert.deepEqual(r.body.meta.page_size, size);
      assert.ok(r.body.data.length <= size);
      for (const tag of r.body.data) assertTag(tag);
    });
  });

  test('PATCH /tags/:id, then GET returns the changed tag', async (t) => {
    const arbitrary = fc.record({
      id: idChoice('tag'),
      entry: tagEntry,
      only: fc.subarray(['url', 'comment', 'session_duration'] as const),
      dataId: fc.oneof({ weight: 8, arbitrary: fc.constant('same') }, { weight: 1, arbitrary: fc.constantFrom('absent', 'other') }),
      junk: maybeJunk,
    });
    await property(t, ['PATCH /tags/:id'], RUNS.write, arbitrary, async ({ id: choice, entry, only, dataId, junk }) => {
      const id = resolveId(choice, tags);
      const attributes = tagAttributes(entry, urls, only);
      const data: Record<string, unknown> = { type: 'tags', attributes };
      if (dataId !== 'absent') data.id = dataId === 'same' ? id : 'tag_0000000000000000000000';
      const r = await call(s(), 'PATCH', `/tags/${pathOf(id)}`, { key: key(), body: junk ?? { data } });
      judge(tally, 'PATCH /tags/:id', r);
      if (r.status !== 200) return;
      assertTag(r.body.data, Object.fromEntries(Object.entries(attributes).filter(([name]) => only.includes(name as never))));
      await readsBack('GET /tags/:id', `/tags/${id}`, r.body.data);
      if (typeof attributes.url === 'string') urls.push(attributes.url);
    });
  });

  test('PATCH /tags (batch), then GET returns every changed tag', async (t) => {
    const update = fc.record({ id: idChoice('tag'), entry: tagEntry, only: fc.subarray(['url', 'comment', 'session_duration'] as const, { minLength: 1 }) });
    const arbitrary = fc.record({ updates: fc.array(update, { minLength: 1, maxLength: 3 }), junk: maybeJunk });
    await property(t, ['PATCH /tags'], RUNS.write, arbitrary, async ({ updates, junk }) => {
      const sent = updates.map((u) => ({ type: 'tags', id: resolveId(u.id, tags), attributes: tagAttributes(u.entry, urls, u.only) }));
      const r = await call(s(), 'PATCH', '/tags', { key: key(), body: junk ?? { data: sent } });
      judge(tally, 'PATCH /tags', r);
      if (r.status !== 200) return;
      assert.equal(r.body.data.length, sent.length);
      // A tag listed twice ends as its last entry left it.
      const last = new Map((r.body.data as any[]).map((tag) => [tag.id, tag]));
      for (const [id, tag] of last) await readsBack('GET /tags/:id', `/tags/${id}`, tag);
    });
  });

  test('DELETE /tags/:id: deleted once, then 404', async (t) => {
    const arbitrary = fc.record({
      target: fc.oneof({ weight: 6, arbitrary: fc.constant({ fresh: true }) }, { weight: 1, arbitrary: idChoice('tag') }),
      withBody: fc.boolean(),
    });
    await property(t, ['DELETE /tags/:id'], RUNS.write, arbitrary, async ({ target, withBody }) => {
      const id = 'fresh' in target ? (await freshTags(1))[0]! : resolveId(target, tags);
      // Node's fetch sends Content-Type with an empty body on DELETE: accepted like no body.
      const r = await call(s(), 'DELETE', `/tags/${pathOf(id)}`, { key: key(), ...(withBody ? { body: '' } : {}) });
      judge(tally, 'DELETE /tags/:id', r);
      if ('fresh' in target) assert.equal(r.status, 204, r.text);
      if (r.status !== 204) return;
      forget(tags, id);
      const gone = await call(s(), 'GET', `/tags/${id}`, { key: key() });
      judge(tally, 'GET /tags/:id', gone);
      assert.equal(gone.status, 404);
      judge(tally, 'DELETE /tags/:id', await call(s(), 'DELETE', `/tags/${id}`, { key: key() }));
    });
  });

  test('DELETE /tags (batch): every listed tag gone', async (t) => {
    const arbitrary = fc.record({
      fresh: fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 1, max: 3 }) }, { weight: 1, arbitrary: fc.constant(0) }),
      others: fc.array(idChoice('tag'), { maxLength: 1 }),
      junk: maybeJunk,
    });
    await property(t, ['DELETE /tags'], RUNS.write, arbitrary, async ({ fresh, others, junk }) => {
      const ids = [...(fresh > 0 ? await freshTags(fresh) : []), ...others.map((o) => resolveId(o, tags))];
      const r = await call(s(), 'DELETE', '/tags', { key: key(), body: junk ?? { data: ids.map((id) => ({ type: 'tags', id })) } });
      judge(tally, 'DELETE /tags', r);
      if (r.status !== 200) return;
      for (const id of new Set(ids)) {
        forget(tags, id);
        const gone = await call(s(), 'GET', `/tags/${id}`, { key: key() });
        judge(tally, 'GET /tags/:id', gone);
        assert.equal(gone.status, 404);
      }
    });
  });

  test('GET /tags/:id, /teams/:id, /keys/:id with any id', async (t) => {
    const route = fc.constantFrom('tags', 'teams', 'keys');
    const arbitrary = fc.record({
      route,
      own: fc.boolean(),
      id: fc.oneof(shapedId('tag'), shapedId('team'), shapedId('key'), junkId),
      otherWorld: fc.boolean(),
    });
    await property(t, ['GET /tags/:id', 'GET /teams/:id', 'GET /keys/:id'], RUNS.ids, arbitrary, async (c) => {
      const w = suite.world;
      const own = { tags: fromPool(tags, c.id.length), teams: w.teamId, keys: w.sandbox.id }[c.route];
      const id = c.own && own !== undefined ? own : c.id;
      // The production key sees neither the sandbox's tags nor its key.
      const k = c.otherWorld ? w.production.key : w.sandbox.key;
      const r = await call(s(), 'GET', `/${c.route}/${pathOf(id)}`, { key: k });
      judge(tally, `GET /${c.route}/:id`, r);
      // Teams are seen from both modes; tags and keys only from their own.
      assert.equal(r.status, id === own && (!c.otherWorld || c.route === 'teams') ? 200 : 404, `${c.route} ${id}: ${r.text}`);
    });
  });

  test("a tag's chip, writes and links with any id", async (t) => {
    const arbitrary = fc.record({
      part: fc.constantFrom('chip', 'writes', 'links'),
      own: fc.boolean(),
      id: fc.oneof(shapedId('tag'), junkId),
      otherWorld: fc.boolean(),
    });
    await property(t, ['GET /tags/:id/chip', 'GET /tags/:id/writes', 'GET /tags/:id/links'], RUNS.ids, arbitrary, async (c) => {
      const w = suite.world;
      const own = fromPool(tags, c.id.length);
      const id = c.own && own !== undefined ? own : c.id;
      const r = await call(s(), 'GET', `/tags/${pathOf(id)}/${c.part}`, { key: c.otherWorld ? w.production.key : w.sandbox.key });
      judge(tally, `GET /tags/:id/${c.part}`, r);
      // The pool's tags are not written: no chip, and writes and links of the tag's own world only.
      assert.equal(r.status, id === own && !c.otherWorld && c.part !== 'chip' ? 200 : 404, `${c.part} ${id}: ${r.text}`);
    });
  });
}
