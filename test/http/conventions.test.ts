// JSON:API conventions on every platform route: media types (415/406), invalid
// JSON (400), oversized bodies (413), error bodies, and the public OpenAPI document.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { DATABASES, JSON_API, call } from '../kit/harness.js';
import { createDocument, createTag, totalCount, updateDocument } from '../tags/helpers.js';
import { assertError, assertJsonApi } from '../kit/assertions.js';
import { sharedServer } from '../kit/harness.js';

/** A request whose headers are exactly `headers` (fetch would add a Content-Type to a string body). */
function raw(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; type: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

for (const kind of DATABASES) {
  describe(`JSON:API conventions (${kind})`, () => {
    const suite = sharedServer(kind);
    const key = () => suite.world.sandbox.key;

    /** One body-carrying request per route that takes a body. */
    const bodyRoutes = async () => {
      const tag = await createTag(suite.server, key());
      return [
        { method: 'POST', path: '/tags', body: createDocument(1) },
        { method: 'PATCH', path: `/tags/${tag.id}`, body: updateDocument(tag.id, { comment: 'x' }) },
        { method: 'PATCH', path: '/tags', body: { data: [updateDocument(tag.id, { comment: 'x' }).data] } },
        { method: 'DELETE', path: '/tags', body: { data: [{ type: 'tags', id: tag.id }] } },
      ];
    };

    test('another media type, or media type parameters → 415', async () => {
      for (const route of await bodyRoutes()) {
        for (const type of [
          'text/plain',
          'application/json; charset=latin1',
          'application/jsonx',
          'application/json-patch+json',
          'application/x-www-form-urlencoded',
          `${JSON_API}; charset=utf-8`,
          `${JSON_API};ext="https://jsonapi.org/ext/atomic"`,
          'application/vnd.api+json2',
        ]) {
          const response = await call(suite.server, route.method, route.path, { key: key(), body: route.body, headers: { 'content-type': type } });
          assertError(response, 415);
        }
      }
      assert.equal(await totalCount(suite.server, key()), 1, 'only the set-up tag exists');
    });

    test('application/json (with or without charset=utf-8) is accepted on every body route; the answer is JSON:API', async () => {
      for (const type of ['application/json', 'Application/JSON', 'application/json; charset=utf-8', 'application/json;charset=UTF-8']) {
        for (const route of await bodyRoutes()) {
          const response = await call(suite.server, route.method, route.path, { key: key(), body: route.body, headers: { 'content-type': type } });
          assert.equal(response.status, route.method === 'POST' ? 201 : 200, `${route.method} ${route.path} ${type}: ${response.text}`);
          assertJsonApi(response);
        }
      }
    });

    test('the exact media type, in any case, is accepted; an omitted Content-Type is tolerated', async () => {
      const upper = await call(suite.server, 'POST', '/tags', { key: key(), body: createDocument(1), headers: { 'content-type': 'Application/Vnd.Api+JSON' } });
      assert.equal(upper.status, 201, upper.text);
      const body = JSON.stringify(createDocument(1));
      const omitted = await raw(
        suite.server.base + '/tags',
        'POST',
        { authorization: `Bearer ${key()}`, 'content-length': String(Buffer.byteLength(body)) },
        body,
      );
      assert.equal(omitted.status, 201, omitted.text);
      assert.equal(omitted.type, JSON_API);
      assert.equal(JSON.parse(omitted.text).data.length, 1);
    });

    test('Accept without application/vnd.api+json → 406; with it, a wildcard, or absent → fine', async () => {
      for (const accept of ['application/json', 'text/html', 'text/*', `${JSON_API}; charset=utf-8`, `${JSON_API};q=0`, `${JSON_API};q=0, application/json`]) {
        assertError(await call(suite.server, 'GET', '/tags', { key: key(), headers: { accept } }), 406);
        assertError(await call(suite.server, 'POST', '/tags', { key: key(), body: createDocument(1), headers: { accept } }), 406);
      }
      for (const accept of [
        JSON_API,
        '*/*',
        'application/*',
        `application/json, ${JSON_API}`,
        `text/html;q=0.9, ${JSON_API};q=0.1`,
        `${JSON_API}; profile="https://example.test/p"`,
      ]) {
        const response = await call(suite.server, 'GET', '/tags', { key: key(), headers: { accept } });
        assert.equal(response.status, 200, `${accept}: ${response.text}`);
      }
      const before = await totalCount(suite.server, key());
      assertError(await call(suite.server, 'POST', '/tags', { key: key(), body: createDocument(1), headers: { accept: 'application/json' } }), 406);
      assert.equal(await totalCount(suite.server, key()), before, 'a 406 creates nothing');
    });

    test('invalid JSON → 400; an empty body → 400', async () => {
      for (const route of await bodyRoutes()) {
        for (const text of ['{', '{"data": [}', 'not json', '{"data":[{"type":"tags",}]}']) {
          assertError(await call(suite.server, route.method, route.path, { key: key(), body: text }), 400);
        }
        assertError(await call(suite.server, route.method, route.path, { key: key(), body: '' }), 400);
        assertError(await call(suite.server, route.method, route.path, { key: key(), body: 'null' }), 400);
      }
      // Also without a Content-Type.
      const omitted = await raw(suite.server.base + '/tags', 'POST', { authorization: `Bearer ${key()}`, 'content-length': '1' }, '{');
      assert.equal(omitted.status, 400);
      assert.equal(omitted.type, JSON_API);
    });

    test('an oversized body → 413', async () => {
      const url = 'https://example.test/' + 'u'.repeat(2000);
      const huge = JSON.stringify({
        data: Array.from({ length: 2500 }, (_, i) => ({ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: `${url}${i}` } })),
      });
      assert.ok(huge.length > 4 * 1024 * 1024);
      const before = await totalCount(suite.server, key());
      assertError(await call(suite.server, 'POST', '/tags', { key: key(), body: huge }), 413);
      assert.equal(await totalCount(suite.server, key()), before);
      // The largest legitimate body (500 entries of 2048-byte urls) fits.
      const big = { data: Array.from({ length: 500 }, (_, i) => ({ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: `${i}:`.padEnd(2048, 'x') } })) };
      const response = await call(suite.server, 'POST', '/tags', { key: key(), body: big });
      assert.equal(response.status, 201, response.text.slice(0, 200));
    });

    test('a url over 2048 bytes → 422 (documented limit)', async () => {
      const response = await call(suite.server, 'POST', '/tags', { key: key(), body: createDocument([{ url: 'x'.repeat(2049) }]) });
      assert.equal(response.status, 422);
      assert.equal(response.body.errors[0].source.pointer, '/data/0/attributes/url');
    });

    test('every response is exactly application/vnd.api+json, errors included', async () => {
      const tag = await createTag(suite.server, key());
      for (const [method, path] of [
        ['GET', '/tags'],
        ['GET', `/tags/${tag.id}`],
        ['GET', '/tags/tag_0000000000000000000000'],
        ['GET', `/teams/${suite.world.teamId}`],
        ['GET', `/keys/${suite.world.sandbox.id}`],
        ['GET', '/nowhere'],
      ]) {
        const response = await call(suite.server, method, path, { key: key() });
        assertJsonApi(response);
      }
      const unauthorized = await call(suite.server, 'GET', '/tags');
      assertJsonApi(unauthorized);
      assertError(await call(suite.server, 'GET', '/nowhere', { key: key() }), 404);
    });

    test('the OpenAPI document is public, 3.1.0, and lists every tag operation', async () => {
      const response = await fetch(`${suite.server.base}/openapi.json`);
      assert.equal(response.status, 200);
      const doc = (await response.json()) as any;
      assert.equal(doc.openapi, '3.1.0');
      assert.deepEqual(Object.keys(doc.paths['/tags']).sort(), ['delete', 'get', 'patch', 'post']);
      assert.deepEqual(Object.keys(doc.paths['/tags/{id}']).sort(), ['delete', 'get', 'patch']);
      assert.ok(doc.paths['/teams/{id}'].get);
      assert.ok(doc.paths['/keys/{id}'].get);
      assert.ok(doc.paths['/tags'].post.responses['201']);
      assert.ok(doc.paths['/tags'].post.responses['422']);
      assert.ok(doc.paths['/tags/{id}'].delete.responses['409']);
      assert.ok(!doc.paths['/openapi.json'] && !doc.paths['/docs'], 'the docs routes are not operations');
      const page = await fetch(`${suite.server.base}/docs`);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type')!, /^text\/html/);
      const html = await page.text();
      assert.match(html, /<html/);
      assert.ok(html.includes('spec-url="/api/v1/openapi.json"'));
    });
  });
}
