// How the server serves the console: index.html for every console path (never cached), hashed assets
// cached for a year, a missing asset a 404 (not the page), and a Content-Security-Policy under which the
// console loads without a single violation.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CONSOLE_DIST } from '../../src/http/console.js';
import { consoleErrors, launchBrowser, pageErrors } from '../kit/browser.js';
import { DATABASES, startServer, type TestServer } from '../kit/harness.js';

const assets = readdirSync(join(CONSOLE_DIST, 'assets'));
const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

for (const kind of DATABASES) {
  describe(`console files (${kind})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer(kind);
    });
    after(() => server.close());

    const get = (path: string) => fetch(server.origin + path, { redirect: 'manual' });

    test('every console path answers index.html, not cached, under a strict CSP', async () => {
      for (const path of ['/console/', '/console/tags', '/console/scans/vrf_123', '/console/no/such/page']) {
        const response = await get(path);
        assert.equal(response.status, 200, path);
        assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
        assert.equal(response.headers.get('cache-control'), 'no-cache');
        assert.equal(
          response.headers.get('content-security-policy'),
          "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        );
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
        const html = await response.text();
        assert.match(html, /<title>tapproof console<\/title>/);
        // Nothing inline: every script and stylesheet is a file under /console/assets/.
        assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/);
        assert.doesNotMatch(html, /<style/);
      }
      const bare = await get('/console');
      assert.equal(bare.status, 301);
      assert.equal(bare.headers.get('location'), '/console/');
    });

    test('hashed assets are cached for a year; a missing one is a 404', async () => {
      assert.ok(assets.some((name) => name.endsWith('.js')));
      assert.ok(assets.some((name) => name.endsWith('.css')));
      for (const name of assets) {
        const response = await get(`/console/assets/${name}`);
        assert.equal(response.status, 200, name);
        assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
        assert.equal(response.headers.get('content-type'), TYPES[name.slice(name.lastIndexOf('.'))], name);
        await response.arrayBuffer();
      }
      const missing = await get('/console/assets/index-00000000.js');
      assert.equal(missing.status, 404);
      // The API's 404, not the console's page: a stale bundle name must not load HTML as a script.
      assert.equal(missing.headers.get('content-type'), 'application/vnd.api+json');
      assert.deepEqual(await missing.json(), { errors: [{ status: '404', title: 'Not Found' }] });
    });

    test('the console signs in and draws its chart in Chromium under its CSP without a violation or a page error', async () => {
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage();
        const errors = pageErrors(page);
        const logged = consoleErrors(page);
        await page.goto(`${server.origin}/console/`);
        const world = await server.seedTeam();
        await page.getByLabel('API key', { exact: true }).fill(world.sandbox.key);
        await page.getByRole('button', { name: 'Sign in with the key', exact: true }).click();
        // The overview draws its chart (uPlot sets styles through the CSSOM, which style-src 'self' allows).
        await page.locator('.chart canvas').first().waitFor();
        assert.deepEqual(errors, []);
        assert.deepEqual(logged, []);
      } finally {
        await browser.close();
      }
    });
  });
}
