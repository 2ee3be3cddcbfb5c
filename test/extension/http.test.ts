// The extension API as HTTP: the one per-IP rate limiter counts it (429 plain
// text, still readable by browsers), bodies are capped on every POST, and the
// OpenAPI document describes it under its own server entry.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { ext } from './helpers.js';

const LIMIT = 4;

for (const kind of DATABASES) {
  describe(`extension HTTP (${kind})`, () => {
    const limited = sharedServer(kind, { TAPPROOF_RATE_LIMIT: String(LIMIT) });
    const suite = sharedServer(kind);

    test('rate limit per client IP across both APIs: the 5th request of the minute → 429 plain text with CORS', async () => {
      const { server } = limited;
      const answers = [
        await ext(server, 'GET', '/claims'),
        await ext(server, 'GET', '/verifications/VRF_abcdef'),
        await ext(server, 'POST', '/claims', { body: {} }),
        await fetch(`${server.base}/tags`).then((r) => ({ status: r.status })),
      ];
      assert.deepEqual(
        answers.map((r) => r.status),
        [400, 404, 400, 401],
      );
      for (const path of ['/claims', '/verifications/VRF_abcdef', '/sandbox/claims']) {
        const r = await ext(server, 'GET', path);
        assert.equal(r.status, 429);
        assert.equal(r.text, 'Too Many Requests');
        assert.equal(r.headers.get('access-control-allow-origin'), '*');
        assert.equal(r.headers.get('access-control-expose-headers'), 'x-request-id');
      }
      assert.equal((await fetch(`${server.origin}/healthz`)).status, 200);
    });

    test('a cross-origin script may read X-Request-Id: every answer exposes it', async () => {
      const { server } = suite;
      const origin = { origin: 'https://shop.brand.example' };
      for (const [method, path] of [
        ['GET', '/verifications/VRF_abcdef'],
        ['GET', '/sandbox/claims'],
        ['POST', '/claims'],
      ] as const) {
        const r = await ext(server, method, path, { headers: { ...origin, 'x-request-id': 'page-42' }, body: method === 'POST' ? {} : undefined });
        assert.equal(r.headers.get('access-control-allow-origin'), '*');
        assert.equal(r.headers.get('access-control-expose-headers'), 'x-request-id');
        assert.equal(r.headers.get('x-request-id'), 'page-42');
      }
    });

    test('every POST body is capped at 16 KiB: 413 {error}', async () => {
      const { server } = suite;
      const big = JSON.stringify({ x: 'y'.repeat(16 * 1024) });
      for (const path of ['/claims', '/verifications/VRF_abcdef/challenge', '/verifications/VRF_abcdef/proof']) {
        const r = await ext(server, 'POST', path, { body: big });
        assert.equal(r.status, 413, path);
        assert.deepEqual(r.body, { error: 'Request body too large' });
      }
    });

    test('the OpenAPI document lists the extension operations with their own server and no credential', async () => {
      const { server } = suite;
      const doc = await (await fetch(`${server.base}/openapi.json`)).json();
      const operations = [
        ['/verifications/{id}', 'get'],
        ['/claims', 'get'],
        ['/claims', 'post'],
        ['/verifications/{id}/challenge', 'post'],
        ['/verifications/{id}/proof', 'post'],
      ] as const;
      for (const [base, tag] of [
        ['/ext', 'extension'],
        ['/ext/sandbox', 'extension (sandbox)'],
      ])
        for (const [path, method] of operations) {
          const item = doc.paths[base + path];
          assert.ok(item?.[method], `${method} ${base}${path}`);
          assert.equal(item.servers[0].url, '/');
          assert.match(item.servers[0].description, /extension API/);
          assert.deepEqual(item[method].security, []);
          assert.deepEqual(item[method].tags, [tag]);
        }
      assert.equal(Object.keys(doc.paths).filter((p) => p.startsWith('/ext/')).length, 8, 'four paths per base');
      assert.deepEqual(doc.servers, [{ url: '/api/v1' }]);
    });
  });
}
