// POST /tags: defaults, limits ±1, 400 vs 422, duplicates, nothing recorded on failure.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, call, type SeededTeam } from '../kit/harness.js';
import { assertTag, createDocument, createTag, eventRows, tagEntry, totalCount, uniqueUrl } from './helpers.js';
import { assertError, assertJsonApi, assertValidation } from '../kit/assertions.js';
import { sharedServer } from '../kit/harness.js';

for (const kind of DATABASES) {
  describe(`POST /tags (${kind})`, () => {
    const suite = sharedServer(kind);

    /** Asserts that a failed create left no tag and no tag.created event behind. */
    async function assertNothingCreated(fresh: SeededTeam): Promise<void> {
      assert.equal(await totalCount(suite.server, fresh.sandbox.key), 0);
      assert.equal((await eventRows(suite.server, 'tag.created', fresh.teamId)).length, 0);
    }

    test('creates tags with all nine fields, defaults and a tag.created event each', async () => {
      const url = uniqueUrl();
      const before = Date.now();
      const response = await call(suite.server, 'POST', '/tags', {
        key: suite.world.sandbox.key,
        body: createDocument([{ url }, { protocol: 'ntag_223_dna', comment: 'box 7', session_duration: 42 }, { protocol: 'ntag_424_dna_tag_tamper' }]),
      });
      assert.equal(response.status, 201, response.text);
      assertJsonApi(response);
      assert.deepEqual(Object.keys(response.body), ['data']);
      const [first, second, third] = response.body.data;
      assertTag(first, { protocol: 'ntag_424_dna', url, comment: null, session_duration: 600, status: 'created', configured_at: null });
      assertTag(second, { protocol: 'ntag_223_dna', comment: 'box 7', session_duration: 42, status: 'created' });
      assertTag(third, { protocol: 'ntag_424_dna_tag_tamper' });
      assert.equal(first.attributes.inserted_at, first.attributes.updated_at);
      const inserted = Date.parse(first.attributes.inserted_at);
      assert.ok(inserted >= before - 1000 && inserted <= Date.now() + 1000, 'inserted_at is now, in UTC');
      assert.equal(new Set(response.body.data.map((t: any) => t.id)).size, 3);

      const events = await eventRows(suite.server, 'tag.created', suite.world.teamId);
      for (const tag of response.body.data) {
        const row = events.find((e) => e.tag_id === tag.id);
        assert.ok(row, `tag.created for ${tag.id}`);
        const payload = JSON.parse(row.payload);
        assert.equal(payload.type, 'tag.created');
        assert.deepEqual(payload.data, tag);
      }
      const got = await call(suite.server, 'GET', `/tags/${first.id}`, { key: suite.world.sandbox.key });
      assert.deepEqual(got.body.data, first);
    });

    test('comment null is accepted; every POST creates new resources', async () => {
      const url = uniqueUrl();
      const a = await createTag(suite.server, suite.world.sandbox.key, { comment: null });
      assert.equal(a.attributes.comment, null);
      const fresh = await suite.server.seedTeam();
      const first = await call(suite.server, 'POST', '/tags', { key: fresh.sandbox.key, body: createDocument([{ url }]) });
      assert.equal(first.status, 201);
      // Same team, same url again: duplicate → 422 (there are no idempotency keys).
      assertValidation(await call(suite.server, 'POST', '/tags', { key: fresh.sandbox.key, body: createDocument([{ url }]) }), ['/data/0/attributes/url']);
    });

    test('batch size: 0 → 400, 1 and 500 → 201, 501 → 400', async () => {
      const fresh = await suite.server.seedTeam();
      assertError(await call(suite.server, 'POST', '/tags', { key: fresh.sandbox.key, body: { data: [] } }), 400);
      assertError(await call(suite.server, 'POST', '/tags', { key: fresh.sandbox.key, body: createDocument(501) }), 400);
      await assertNothingCreated(fresh);
      const one = await call(suite.server, 'POST', '/tags', { key: fresh.sandbox.key, body: createDocument(1) });
      assert.equal(one.status, 201);
      assert.equal(one.body.data.length, 1);
      const many = await call(suite.server, 'POST', '/tags', { key: fresh.sandbox.key, body: createDocument(500) });
      assert.equal(many.status, 201, many.text);
      assert.equal(many.body.data.length, 500);
      many.body.data.forEach((t: any) => assertTag(t));
      assert.equal(await totalCount(suite.server, fresh.sandbox.key), 501);
      assert.equal((await eventRows(suite.server, 'tag.created', fresh.teamId)).length, 501);
    });

    test('shape errors are 400 with status and title only', async () => {
      const key = suite.world.sandbox.key;
      const bodies: unknown[] = [
        {},
        { data: tagEntry() },
        { data: 'x' },
        { data: null },
        [tagEntry()],
        { data: [{ type: 'tags' }] },
        { data: [{ attributes: { protocol: 'ntag_424_dna', url: uniqueUrl() } }] },
        { data: [{ type: 'teams', attributes: { protocol: 'ntag_424_dna', url: uniqueUrl() } }] },
        { data: [tagEntry(), 'x'] },
        { data: [tagEntry({ protocol: undefined })] },
        { data: [tagEntry({ url: undefined })] },
        { data: [tagEntry(), tagEntry({ url: undefined, protocol: undefined })] },
      ];
      const fresh = await suite.server.seedTeam();
      for (const body of bodies) {
        assertError(await call(suite.server, 'POST', '/tags', { key, body }), 400);
        assertError(await call(suite.server, 'POST', '/tags', { key: fresh.sandbox.key, body }), 400);
      }
      await assertNothingCreated(fresh);
    });

    test('unrecognized protocol → 422 with a pointer per entry', async () => {
      const fresh = await suite.server.seedTeam();
      const response = await call(suite.server, 'POST', '/tags', {
        key: fresh.sandbox.key,
        body: createDocument([{}, { protocol: 'mifare_classic' }, { protocol: 'NTAG_424_DNA' }, { protocol: 7 }]),
      });
      assertValidation(response, ['/data/1/attributes/protocol', '/data/2/attributes/protocol', '/data/3/attributes/protocol']);
      await assertNothingCreated(fresh);
    });

    test('comment: 50 characters ok, 51 → 422, non-string → 422', async () => {
      const fresh = await suite.server.seedTeam();
      const fifty = 'c'.repeat(50);
      const ok = await createTag(suite.server, fresh.sandbox.key, { comment: fifty });
      assert.equal(ok.attributes.comment, fifty);
      // Characters, not bytes: 50 two-byte characters fit.
      assert.equal((await createTag(suite.server, fresh.sandbox.key, { comment: 'é'.repeat(50) })).attributes.comment, 'é'.repeat(50));
      const response = await call(suite.server, 'POST', '/tags', {
        key: fresh.sandbox.key,
        body: createDocument([{}, { comment: 'c'.repeat(51) }, { comment: 5 }]),
      });
      assertValidation(response, ['/data/1/attributes/comment', '/data/2/attributes/comment']);
      assert.equal(await totalCount(suite.server, fresh.sandbox.key), 2);
    });

    test('session_duration: 1 and 3600 ok; 0, 3601, fractions, strings, null → 422', async () => {
      const fresh = await suite.server.seedTeam();
      const ok = await call(suite.server, 'POST', '/tags', {
        key: fresh.sandbox.key,
        body: createDocument([{ session_duration: 1 }, { session_duration: 3600 }]),
      });
      assert.equal(ok.status, 201, ok.text);
      assert.deepEqual(
        ok.body.data.map((t: any) => t.attributes.session_duration),
        [1, 3600],
      );
      const bad = [0, 3601, -1, 1.5, '600', null, true, [600], {}];
      const response = await call(suite.server, 'POST', '/tags', { key: fresh.sandbox.key, body: createDocument(bad.map((v) => ({ session_duration: v }))) });
      assertValidation(
        response,
        bad.map((_, i) => `/data/${i}/attributes/session_duration`),
      );
      assert.equal(await totalCount(suite.server, fresh.sandbox.key), 2);
    });

    test('one error per failed attribute, across entries', async () => {
      const fresh = await suite.server.seedTeam();
      const response = await call(suite.server, 'POST', '/tags', {
        key: fresh.sandbox.key,
        body: createDocument([{ protocol: 'x', comment: 'c'.repeat(51), session_duration: 0 }, {}, { url: 5 }, { url: '' }]),
      });
      assertValidation(response, [
        '/data/0/attributes/protocol',
        '/data/0/attributes/comment',
        '/data/0/attributes/session_duration',
        '/data/2/attributes/url',
        '/data/3/attributes/url',
      ]);
      await assertNothingCreated(fresh);
    });

    test('a NUL character in url or comment → 422 on both engines (PostgreSQL text cannot hold it)', async () => {
      const fresh = await suite.server.seedTeam();
      const response = await call(suite.server, 'POST', '/tags', {
        key: fresh.sandbox.key,
        body: createDocument([{ url: 'https://e.x/\u0000' }, { comment: 'a\u0000b' }]),
      });
      assertValidation(response, ['/data/0/attributes/url', '/data/1/attributes/comment']);
      await assertNothingCreated(fresh);
    });

    test('read-only or unknown attributes → 422 with their pointer', async () => {
      const fresh = await suite.server.seedTeam();
      const response = await call(suite.server, 'POST', '/tags', {
        key: fresh.sandbox.key,
        body: createDocument([{ status: 'configured' }, { colour: 'red' }]),
      });
      assertValidation(response, ['/data/0/attributes/status', '/data/1/attributes/colour']);
      await assertNothingCreated(fresh);
    });

    test('duplicate url within the batch → 422, nothing created', async () => {
      const fresh = await suite.server.seedTeam();
      const url = uniqueUrl();
      const response = await call(suite.server, 'POST', '/tags', { key: fresh.sandbox.key, body: createDocument([{}, { url }, {}, { url }]) });
      assertValidation(response, ['/data/3/attributes/url']);
      await assertNothingCreated(fresh);
    });

    test('duplicate url against an existing tag → 422, nothing created', async () => {
      const fresh = await suite.server.seedTeam();
      const existing = await createTag(suite.server, fresh.sandbox.key);
      const before = (await eventRows(suite.server, 'tag.created', fresh.teamId)).length;
      const response = await call(suite.server, 'POST', '/tags', { key: fresh.sandbox.key, body: createDocument([{}, {}, { url: existing.attributes.url }]) });
      assertValidation(response, ['/data/2/attributes/url']);
      assert.equal(await totalCount(suite.server, fresh.sandbox.key), 1);
      assert.equal((await eventRows(suite.server, 'tag.created', fresh.teamId)).length, before);
      // Retrying the identical request creates no duplicate either.
      assertValidation(await call(suite.server, 'POST', '/tags', { key: fresh.sandbox.key, body: { data: [tagEntry({ url: existing.attributes.url })] } }), [
        '/data/0/attributes/url',
      ]);
      assert.equal(await totalCount(suite.server, fresh.sandbox.key), 1);
    });

    test('url is unique per team and mode: the same url is fine in another team or the other mode', async () => {
      const url = uniqueUrl();
      const other = await suite.server.seedTeam();
      const sub = await suite.server.seedTeam({ parent: suite.world.teamId });
      await createTag(suite.server, suite.world.sandbox.key, { url });
      assert.equal((await createTag(suite.server, suite.world.production.key, { url })).attributes.url, url);
      assert.equal((await createTag(suite.server, other.sandbox.key, { url })).attributes.url, url);
      assert.equal((await createTag(suite.server, sub.sandbox.key, { url })).attributes.url, url);
      // Exact-string comparison: a differently cased url is another url.
      assert.equal((await createTag(suite.server, suite.world.sandbox.key, { url: url.toUpperCase() })).attributes.url, url.toUpperCase());
    });

    test('url is stored exactly as given', async () => {
      const url = `  https://example.test/ünïcode?a=1&b=${uniqueUrl()} `;
      assert.equal((await createTag(suite.server, suite.world.sandbox.key, { url })).attributes.url, url);
    });

    test('a client-chosen id is refused', async () => {
      const response = await call(suite.server, 'POST', '/tags', {
        key: suite.world.sandbox.key,
        body: { data: [{ ...tagEntry(), id: 'tag_0000000000000000000000' }] },
      });
      assertError(response, 400);
    });

    test('two simultaneous POSTs with the same url: exactly one 201 and one 422', async () => {
      for (let round = 0; round < 5; round++) {
        const fresh = await suite.server.seedTeam();
        const url = uniqueUrl('race');
        const responses = await Promise.all([0, 1].map(() => call(suite.server, 'POST', '/tags', { key: fresh.sandbox.key, body: createDocument([{ url }]) })));
        const statuses = responses.map((r) => r.status).sort();
        assert.deepEqual(statuses, [201, 422], responses.map((r) => r.text).join('\n'));
        assertValidation(
          responses.find((r) => r.status === 422)!,
          ['/data/0/attributes/url'],
        );
        assert.equal(await totalCount(suite.server, fresh.sandbox.key), 1);
        assert.equal((await eventRows(suite.server, 'tag.created', fresh.teamId)).length, 1);
      }
    });
  });
}
