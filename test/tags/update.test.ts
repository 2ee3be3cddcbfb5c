// GET /tags/:id, PATCH /tags/:id and PATCH /tags.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, call } from '../kit/harness.js';
import { assertTag, batchUpdateDocument, configure, createTag, createTags, updateDocument, uniqueUrl } from './helpers.js';
import { assertError, assertJsonApi, assertValidation } from '../kit/assertions.js';
import { sharedServer } from '../kit/harness.js';

for (const kind of DATABASES) {
  describe(`GET and PATCH /tags (${kind})`, () => {
    const suite = sharedServer(kind);

    const get = (id: string) => call(suite.server, 'GET', `/tags/${id}`, { key: suite.world.sandbox.key });
    const patch = (id: string, body: unknown) => call(suite.server, 'PATCH', `/tags/${id}`, { key: suite.world.sandbox.key, body });
    const patchMany = (body: unknown) => call(suite.server, 'PATCH', '/tags', { key: suite.world.sandbox.key, body });

    test('GET /tags/:id returns the tag; unknown and malformed ids → 404', async () => {
      const tag = await createTag(suite.server, suite.world.sandbox.key, { comment: 'x' });
      const response = await get(tag.id);
      assert.equal(response.status, 200);
      assertJsonApi(response);
      assert.deepEqual(Object.keys(response.body), ['data']);
      assertTag(response.body.data, { comment: 'x', status: 'created' });
      assert.deepEqual(response.body.data, tag);
      assertError(await get('tag_0000000000000000000000'), 404);
      assertError(await get('nonsense'), 404);
    });

    test('PATCH /tags/:id changes url, comment and session_duration and moves updated_at', async () => {
      const tag = await createTag(suite.server, suite.world.sandbox.key);
      const url = uniqueUrl();
      const response = await patch(tag.id, updateDocument(tag.id, { url, comment: 'new', session_duration: 3600 }));
      assert.equal(response.status, 200, response.text);
      assertJsonApi(response);
      assertTag(response.body.data, {
        url,
        comment: 'new',
        session_duration: 3600,
        status: 'created',
        protocol: tag.attributes.protocol,
        inserted_at: tag.attributes.inserted_at,
      });
      assert.ok(response.body.data.attributes.updated_at > tag.attributes.updated_at);
      assert.deepEqual((await get(tag.id)).body.data, response.body.data);
      // Clearing the comment, the body without data.id, and limits ±1.
      const cleared = await patch(tag.id, { data: { type: 'tags', attributes: { comment: null, session_duration: 1 } } });
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal(cleared.body.data.attributes.comment, null);
      assert.equal(cleared.body.data.attributes.session_duration, 1);
      assert.equal((await patch(tag.id, updateDocument(tag.id, { comment: 'c'.repeat(50) }))).body.data.attributes.comment, 'c'.repeat(50));
      // An empty attributes object is a valid no-op.
      const noop = await patch(tag.id, updateDocument(tag.id, {}));
      assert.equal(noop.status, 200);
      assert.equal(noop.body.data.attributes.comment, 'c'.repeat(50));
    });

    test('PATCH /tags/:id: bad shape → 400', async () => {
      const tag = await createTag(suite.server, suite.world.sandbox.key);
      for (const body of [
        {},
        { data: [] },
        { data: [{ type: 'tags', id: tag.id, attributes: {} }] },
        { data: { type: 'tags', id: tag.id } },
        { data: { type: 'tags', id: tag.id, attributes: 'x' } },
        { data: { type: 'tags', id: tag.id, attributes: [] } },
        { data: { type: 'teams', id: tag.id, attributes: {} } },
        { data: { id: tag.id, attributes: {} } },
        { data: { type: 'tags', id: 'tag_0000000000000000000000', attributes: {} } },
      ]) {
        assertError(await patch(tag.id, body), 400);
      }
      assert.deepEqual((await get(tag.id)).body.data, tag);
    });

    test('PATCH /tags/:id: unknown tag → 404', async () => {
      const id = 'tag_0000000000000000000000';
      assertError(await patch(id, updateDocument(id, { comment: 'x' })), 404);
    });

    test('PATCH /tags/:id: invalid values → 422 with one pointer each, nothing changed', async () => {
      const tag = await createTag(suite.server, suite.world.sandbox.key);
      const response = await patch(tag.id, updateDocument(tag.id, { comment: 'c'.repeat(51), session_duration: 0, url: 7 }));
      assertValidation(response, ['/data/attributes/comment', '/data/attributes/session_duration', '/data/attributes/url']);
      assertValidation(await patch(tag.id, updateDocument(tag.id, { session_duration: 3601 })), ['/data/attributes/session_duration']);
      assertValidation(await patch(tag.id, updateDocument(tag.id, { session_duration: '60' })), ['/data/attributes/session_duration']);
      assertValidation(await patch(tag.id, updateDocument(tag.id, { protocol: 'ntag_223_dna' })), ['/data/attributes/protocol']);
      assertValidation(await patch(tag.id, updateDocument(tag.id, { status: 'configured' })), ['/data/attributes/status']);
      assert.deepEqual((await get(tag.id)).body.data, tag);
    });

    test('PATCH /tags/:id: duplicate url → 422; own url is not a duplicate', async () => {
      const [a, b] = await createTags(suite.server, suite.world.sandbox.key, 2);
      assertValidation(await patch(b.id, updateDocument(b.id, { url: a.attributes.url })), ['/data/attributes/url']);
      assert.deepEqual((await get(b.id)).body.data, b);
      const same = await patch(a.id, updateDocument(a.id, { url: a.attributes.url, comment: 'same url' }));
      assert.equal(same.status, 200, same.text);
    });

    test('configured tag: url change → 422; comment and session_duration stay editable', async () => {
      const tag = await createTag(suite.server, suite.world.sandbox.key);
      await configure(suite.server, suite.world, tag.id);
      const configured = (await get(tag.id)).body.data;
      assertTag(configured, { status: 'configured' });
      assert.ok(configured.attributes.updated_at > tag.attributes.updated_at);
      assert.equal(configured.attributes.updated_at, configured.attributes.configured_at);

      assertValidation(await patch(tag.id, updateDocument(tag.id, { url: uniqueUrl() })), ['/data/attributes/url']);
      assertValidation(await patch(tag.id, updateDocument(tag.id, { url: uniqueUrl(), comment: 'also' })), ['/data/attributes/url']);
      assert.deepEqual((await get(tag.id)).body.data, configured);

      const edited = await patch(tag.id, updateDocument(tag.id, { comment: 'still editable', session_duration: 5 }));
      assert.equal(edited.status, 200, edited.text);
      assertTag(edited.body.data, {
        status: 'configured',
        comment: 'still editable',
        session_duration: 5,
        configured_at: configured.attributes.configured_at,
        url: tag.attributes.url,
      });
      assert.ok(edited.body.data.attributes.updated_at > configured.attributes.updated_at);
      // Sending the unchanged url is not a change.
      assert.equal((await patch(tag.id, updateDocument(tag.id, { url: tag.attributes.url }))).status, 200);
    });

    test('PATCH /tags: updates in request order, in the retrieve shape', async () => {
      const tags = await createTags(suite.server, suite.world.sandbox.key, 3);
      const order = [tags[2], tags[0], tags[1]];
      const response = await patchMany(batchUpdateDocument(order.map((t, i) => ({ id: t.id, attributes: { comment: `n${i}` } }))));
      assert.equal(response.status, 200, response.text);
      assertJsonApi(response);
      assert.deepEqual(
        response.body.data.map((t: any) => t.id),
        order.map((t) => t.id),
      );
      response.body.data.forEach((t: any, i: number) => assertTag(t, { comment: `n${i}` }));
      for (const t of response.body.data) assert.deepEqual((await get(t.id)).body.data, t);
    });

    test('PATCH /tags: the same tag twice applies in order', async () => {
      const tag = await createTag(suite.server, suite.world.sandbox.key);
      const response = await patchMany(
        batchUpdateDocument([
          { id: tag.id, attributes: { comment: 'first', session_duration: 9 } },
          { id: tag.id, attributes: { comment: 'second' } },
        ]),
      );
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.length, 2);
      assert.equal((await get(tag.id)).body.data.attributes.comment, 'second');
      assert.equal((await get(tag.id)).body.data.attributes.session_duration, 9);
    });

    test('PATCH /tags: one bad entry → 422 with its index, nothing changed', async () => {
      const tags = await createTags(suite.server, suite.world.sandbox.key, 3);
      const response = await patchMany(
        batchUpdateDocument([
          { id: tags[0].id, attributes: { comment: 'ok' } },
          { id: tags[1].id, attributes: { session_duration: 3601 } },
          { id: tags[2].id, attributes: { url: uniqueUrl() } },
        ]),
      );
      assertValidation(response, ['/data/1/attributes/session_duration']);
      for (const t of tags) assert.deepEqual((await get(t.id)).body.data, t);
    });

    test('PATCH /tags: a configured url change or a duplicate url → 422, nothing changed', async () => {
      const tags = await createTags(suite.server, suite.world.sandbox.key, 3);
      await configure(suite.server, suite.world, tags[2].id);
      const configured = (await get(tags[2].id)).body.data;
      const outsider = await createTag(suite.server, suite.world.sandbox.key);
      const response = await patchMany(
        batchUpdateDocument([
          { id: tags[0].id, attributes: { comment: 'ok', url: uniqueUrl() } },
          { id: tags[1].id, attributes: { url: outsider.attributes.url } },
          { id: tags[2].id, attributes: { url: uniqueUrl() } },
        ]),
      );
      assertValidation(response, ['/data/1/attributes/url', '/data/2/attributes/url']);
      assert.deepEqual((await get(tags[0].id)).body.data, tags[0]);
      assert.deepEqual((await get(tags[1].id)).body.data, tags[1]);
      assert.deepEqual((await get(tags[2].id)).body.data, configured);
      // Two entries moving to one new url.
      const url = uniqueUrl();
      assertValidation(
        await patchMany(
          batchUpdateDocument([
            { id: tags[0].id, attributes: { url } },
            { id: tags[1].id, attributes: { url } },
          ]),
        ),
        ['/data/1/attributes/url'],
      );
      assert.deepEqual((await get(tags[0].id)).body.data, tags[0]);
    });

    test('PATCH /tags: a missing id → 404, nothing changed', async () => {
      const tags = await createTags(suite.server, suite.world.sandbox.key, 2);
      const other = await suite.server.seedTeam();
      const foreign = await createTag(suite.server, other.sandbox.key);
      for (const missing of ['tag_0000000000000000000000', foreign.id, 'garbage']) {
        const response = await patchMany(
          batchUpdateDocument([
            { id: tags[0].id, attributes: { comment: 'changed' } },
            { id: missing, attributes: { comment: 'x' } },
            { id: tags[1].id, attributes: { comment: 'changed' } },
          ]),
        );
        assertError(response, 404);
      }
      for (const t of tags) assert.deepEqual((await get(t.id)).body.data, t);
      assert.deepEqual((await call(suite.server, 'GET', `/tags/${foreign.id}`, { key: other.sandbox.key })).body.data, foreign);
    });

    test('PATCH /tags: swapping urls between two tags in one batch works', async () => {
      const [a, b, c] = await createTags(suite.server, suite.world.sandbox.key, 3);
      const response = await patchMany(
        batchUpdateDocument([
          { id: a.id, attributes: { url: b.attributes.url } },
          { id: b.id, attributes: { url: a.attributes.url } },
        ]),
      );
      assert.equal(response.status, 200, response.text);
      assert.equal((await get(a.id)).body.data.attributes.url, b.attributes.url);
      assert.equal((await get(b.id)).body.data.attributes.url, a.attributes.url);
      // A three-way rotation too.
      const rotate = await patchMany(
        batchUpdateDocument([
          { id: a.id, attributes: { url: c.attributes.url } },
          { id: b.id, attributes: { url: b.attributes.url } },
          { id: c.id, attributes: { url: a.attributes.url } },
        ]),
      );
      // State before: a=B, b=A, c=C; after: a=C, b=B, c=A (all distinct, judged on the final state).
      assert.equal(rotate.status, 200, rotate.text);
      assert.deepEqual(
        rotate.body.data.map((t: any) => t.attributes.url),
        [c.attributes.url, b.attributes.url, a.attributes.url],
      );
      assert.equal((await get(c.id)).body.data.attributes.url, a.attributes.url);
    });

    test('PATCH /tags: 0 and 501 entries or bad shapes → 400; 1 and 500 → 200', async () => {
      const fresh = await suite.server.seedTeam();
      const tags = await createTags(suite.server, fresh.sandbox.key, 500);
      const call500 = (body: unknown) => call(suite.server, 'PATCH', '/tags', { key: fresh.sandbox.key, body });
      assertError(await call500({ data: [] }), 400);
      assertError(await call500(batchUpdateDocument([...tags, tags[0]].map((t) => ({ id: t.id, attributes: { comment: 'x' } })))), 400);
      for (const body of [
        {},
        { data: { type: 'tags', id: tags[0].id, attributes: {} } },
        { data: [{ type: 'tags', attributes: { comment: 'x' } }] },
        { data: [{ type: 'tags', id: tags[0].id }] },
        { data: [{ type: 'tags', id: 5, attributes: {} }] },
        { data: [{ type: 'other', id: tags[0].id, attributes: {} }] },
      ]) {
        assertError(await call500(body), 400);
      }
      const one = await call500(batchUpdateDocument([{ id: tags[0].id, attributes: { comment: 'one' } }]));
      assert.equal(one.status, 200, one.text);
      assert.equal(one.body.data.length, 1);
      const all = await call500(batchUpdateDocument(tags.map((t, i) => ({ id: t.id, attributes: { comment: `c${i}` } }))));
      assert.equal(all.status, 200, all.text);
      assert.equal(all.body.data.length, 500);
      assert.deepEqual(
        all.body.data.map((t: any) => t.attributes.comment),
        tags.map((_, i) => `c${i}`),
      );
    });
  });
}
