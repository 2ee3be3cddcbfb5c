// GET /api/v1/docs: a Redoc reference of the served openapi.json, with Redoc's
// standalone bundle served from node_modules: no CDN, nothing loaded from another origin.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from '../kit/harness.js';

describe('GET /api/v1/docs (sqlite)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer('sqlite');
  });
  after(() => server.close());

  test('the page loads only same-origin resources: the document and the bundled Redoc script', async () => {
    const page = await fetch(`${server.base}/docs`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    const html = await page.text();
    assert.doesNotMatch(html, /https?:|\/\/[a-z]/i, 'no absolute or protocol-relative URL');
    const references = [...html.matchAll(/\b(?:src|href|spec-url)="([^"]*)"/g)].map((m) => m[1]);
    assert.deepEqual(references, ['/api/v1/openapi.json', '/api/v1/openapi.json', '/api/v1/docs/redoc.standalone.js']);
  });

  test('the script is Redoc’s standalone bundle as installed, with its one CDN address (the sidebar logo) blanked', async () => {
    const script = await fetch(`${server.base}/docs/redoc.standalone.js`);
    assert.equal(script.status, 200);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    const served = await script.text();
    const installed = readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
    assert.equal(served, installed.replace('src:"https://cdn.redoc.ly/redoc/logo-mini.svg"', 'src:"data:,"'));
    assert.doesNotMatch(served, /cdn\.|fonts\.googleapis|unpkg|jsdelivr/i);
    // What a browser would load by itself: image or script sources, stylesheet imports, CSS urls.
    // The remaining https strings are JSON Schema ids, error-message links and one outbound link.
    const loaded = [...served.matchAll(/(?:src|url|import)\s*[:=(]\s*["']?(https?:\/\/[^"')\s]+)/gi)].map((m) => m[1]);
    assert.deepEqual(loaded, ['https://github.com/mermade/oas-kit'], 'only the converter url a Swagger 2 import records as metadata');
    assert.deepEqual(
      [...served.matchAll(/href\s*[:=]\s*["'](https?:\/\/[^"']*)/g)].map((m) => m[1]),
      ['https://redocly.com/redoc/'],
      'one outbound link, followed only on a click',
    );
  });

  test('the document the page points at is served, without a key', async () => {
    const document = await fetch(`${server.base}/openapi.json`);
    assert.equal(document.status, 200);
    assert.equal((await document.json()).openapi, '3.1.0');
  });
});
