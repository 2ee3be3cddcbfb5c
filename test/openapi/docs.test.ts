// GET /api/v1/docs: a Redoc reference of the served openapi.json, with Redoc's
// standalone bundle served from node_modules (no CDN, nothing from another origin).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from '../harness.js';

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

  test('the script is Redoc’s standalone bundle as installed, served as JavaScript', async () => {
    const script = await fetch(`${server.base}/docs/redoc.standalone.js`);
    assert.equal(script.status, 200);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    const installed = readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'));
    assert.ok(Buffer.from(await script.arrayBuffer()).equals(installed));
  });

  test('the document the page points at is served, without a key', async () => {
    const document = await fetch(`${server.base}/openapi.json`);
    assert.equal(document.status, 200);
    assert.equal((await document.json()).openapi, '3.1.0');
  });
});
