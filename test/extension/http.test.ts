// The extension API as HTTP: the one per-IP rate limiter counts it (429 plain
// text, still readable by browsers), bodies are capped on every POST, and the
// OpenAPI document describes it under its own server entry.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, sharedServer } from '../harness.js';
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
      assert.deepEqual(answers.map((r) => r.status), [400, 404, 400, 401]);
      for (const path of ['/claims', '/verifications/VRF_abcdef', '/sandbox/claims']) {
        const r = await ext(server, 'GET', path);
        assert.equal(r.status, 429);
        assert.equal(r.text, 'Too Many Requests');
        assert.equal(r.headers.get('access-control-allow-origin'), '*');
      }
      assert.equal((await fetch(`${server.origin}/healthz`)).status, 200);
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
      for (const [path, method] of [['/ext/verifications/{id}', 'get'], ['/ext/claims', 'get'], ['/ext/claims', 'post'], ['/ext/verifications/{id}/challenge', 'post'], ['/ext/verifications/{id}/proof', 'post']] as const) {
        const item = doc.paths[path];
        assert.ok(item?.[method], `${method} ${path}`);
        assert.equal(item.servers[0].url, '/');
        assert.match(item.servers[0].description, /extension API/);
        assert.deepEqual(item[method].security, []);
      }
      assert.ok(!Object.keys(doc.paths).some((p) => p.includes('/sandbox/')), 'sandbox paths are the same operations under another base');
      assert.deepEqual(doc.servers, [{ url: '/api/v1' }]);
    });
  });
}
