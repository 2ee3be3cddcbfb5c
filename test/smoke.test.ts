import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, call, sharedServer } from './kit/harness.js';

for (const kind of DATABASES) {
  describe(`smoke (${kind})`, () => {
    const suite = sharedServer(kind);

    test('create, read, list, patch and delete a tag', async () => {
      const created = await call(suite.server, 'POST', '/tags', {
        key: suite.world.sandbox.key,
        body: { data: [{ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: 'https://e.x/1' } }] },
      });
      assert.equal(created.status, 201, created.text);
      const id = created.body.data[0].id;
      const got = await call(suite.server, 'GET', `/tags/${id}`, { key: suite.world.sandbox.key });
      assert.equal(got.status, 200);
      assert.equal(got.headers.get('content-type'), 'application/vnd.api+json');
      const listed = await call(suite.server, 'GET', '/tags', { key: suite.world.sandbox.key });
      assert.equal(listed.body.meta.total_count, 1);
      const patched = await call(suite.server, 'PATCH', `/tags/${id}`, {
        key: suite.world.sandbox.key,
        body: { data: { type: 'tags', id, attributes: { comment: 'hi' } } },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.data.attributes.comment, 'hi');
      const deleted = await call(suite.server, 'DELETE', `/tags/${id}`, { key: suite.world.sandbox.key });
      assert.equal(deleted.status, 204);
    });
  });
}
