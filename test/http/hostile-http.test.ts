// Hostile or unusual HTTP framing answered cleanly (docs/hardening.md): an empty body sent
// with a Content-Type where none is expected, and a huge client request id (the id
// rules themselves: test/http/hostile-inputs.test.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, call } from '../kit/harness.js';
import { createTags } from '../tags/helpers.js';
import { sharedServer } from '../kit/harness.js';

for (const kind of DATABASES) {
  describe(`HTTP framing (${kind})`, () => {
    const suite = sharedServer(kind);
    test('DELETE with Content-Type and Content-Length: 0 deletes (204)', async () => {
      const [tag] = await createTags(suite.server, suite.world.sandbox.key, 1);
      const response = await call(suite.server, 'DELETE', `/tags/${tag.id}`, { key: suite.world.sandbox.key, body: '' });
      assert.equal(response.status, 204, response.text);
      assert.equal((await call(suite.server, 'GET', `/tags/${tag.id}`, { key: suite.world.sandbox.key })).status, 404);
    });
    test('an 8,000-character X-Request-Id is answered as without one, under an id the server made', async () => {
      const made = await createTags(suite.server, suite.world.sandbox.key, 2);
      const plain = await call(suite.server, 'GET', '/tags', { key: suite.world.sandbox.key });
      const response = await call(suite.server, 'GET', '/tags', { key: suite.world.sandbox.key, headers: { 'x-request-id': 'a'.repeat(8000) } });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        made.map((t) => plain.body.data.some((d: { id: string }) => d.id === t.id)),
        [true, true],
      );
      assert.deepEqual(response.body, plain.body);
      // Too long to log verbatim: replaced by a UUID; one of 128 characters is kept as sent.
      assert.match(response.headers.get('x-request-id')!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const kept = await call(suite.server, 'GET', '/tags', { key: suite.world.sandbox.key, headers: { 'x-request-id': 'b'.repeat(128) } });
      assert.equal(kept.headers.get('x-request-id'), 'b'.repeat(128));
    });
  });
}
