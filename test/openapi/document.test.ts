// The served OpenAPI document declares what the server actually speaks:
// application/vnd.api+json bodies (never application/json, which gets 415/406)
// and named component schemas a generator can turn into type names.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from '../harness.js';

describe('openapi.json (sqlite)', () => {
  let server: TestServer;
  let document: any;
  before(async () => {
    server = await startServer('sqlite');
    const response = await fetch(`${server.base}/openapi.json`);
    assert.equal(response.status, 200);
    document = await response.json();
  });
  after(() => server.close());

  test('every platform request and JSON response body is application/vnd.api+json', () => {
    let bodies = 0;
    for (const [path, methods] of Object.entries<any>(document.paths)) {
      if (path.startsWith('/ext/')) continue; // the extension API is plain JSON by design
      for (const [method, op] of Object.entries<any>(methods)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (op.requestBody) {
          assert.deepEqual(Object.keys(op.requestBody.content), ['application/vnd.api+json'], where);
          bodies++;
        }
        for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
          if (!response.content) continue;
          assert.ok(!('application/json' in response.content), `${where} ${status}`);
          bodies++;
        }
      }
    }
    assert.ok(bodies > 10, `only ${bodies} bodies declared`);
  });

  test('component schemas are named, not def-N', () => {
    const names = Object.keys(document.components.schemas);
    assert.ok(names.includes('Tag') && names.includes('ErrorDocument'), names.join(','));
    assert.ok(!names.some((name) => /^def-\d+$/.test(name)), names.join(','));
    assert.ok(!JSON.stringify(document).includes('#/components/schemas/def-'));
  });
});
