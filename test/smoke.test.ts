import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES, call, startServer, type TestServer, type World } from './harness.js';

for (const kind of DATABASES) {
  describe(`smoke (${kind})`, () => {
    let server: TestServer;
    let world: World;
    before(async () => {
      server = await startServer(kind);
      world = await server.seedTeam();
    });
    after(() => server.close());

    test('create, read, list, patch and delete a tag', async () => {
      const created = await call(server, 'POST', '/tags', { key: world.sandbox.key, body: { data: [{ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: 'https://e.x/1' } }] } });
      assert.equal(created.status, 201, created.text);
      const id = created.body.data[0].id;
      const got = await call(server, 'GET', `/tags/${id}`, { key: world.sandbox.key });
      assert.equal(got.status, 200);
      assert.equal(got.headers.get('content-type'), 'application/vnd.api+json');
      const listed = await call(server, 'GET', '/tags', { key: world.sandbox.key });
      assert.equal(listed.body.meta.total_count, 1);
      const patched = await call(server, 'PATCH', `/tags/${id}`, { key: world.sandbox.key, body: { data: { type: 'tags', id, attributes: { comment: 'hi' } } } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.data.attributes.comment, 'hi');
      const deleted = await call(server, 'DELETE', `/tags/${id}`, { key: world.sandbox.key });
      assert.equal(deleted.status, 204);
    });
  });
}
