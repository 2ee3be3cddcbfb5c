// The writer routes' auth matrix and bad input: the key of the tag's team and mode only, unknown
// and other teams' ids, malformed bodies. Never a 500.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DATABASES, call, onlyError, sharedServer } from '../kit/harness.js';
import { createdTag } from './helpers.js';

for (const kind of DATABASES) {
  describe(`writer routes (${kind})`, () => {
    const suite = sharedServer(kind);
    const start = (key: string | null, tagId: unknown) =>
      call(suite.server, 'POST', '/writer/writes', { key, body: { data: { type: 'writes', attributes: { tag_id: tagId } } } });

    it('auth matrix: no key 401; the other mode, another team: 404 for the tag and for the write', async () => {
      const { server, world } = suite;
      const other = await server.seedTeam({ name: 'other' });
      const { id } = await createdTag(server, world.sandbox.key);
      assert.equal((await start(null, id)).status, 401);
      assert.equal((await start('tp_sandbox_nonsense', id)).status, 401);
      assert.equal((await start(world.production.key, id)).status, 404);
      assert.equal((await start(other.sandbox.key, id)).status, 404);
      const started = await start(world.sandbox.key, id);
      assert.equal(started.status, 201);
      const wid = started.body.data.id;
      assert.match(wid, /^wrt_[0-9A-Za-z]{22}$/);
      for (const key of [world.production.key, other.sandbox.key, other.production.key]) {
        assert.equal((await call(server, 'GET', `/writer/writes/${wid}`, { key })).status, 404);
        const r = await call(server, 'POST', `/writer/writes/${wid}/responses`, { key, body: { data: { type: 'writes', attributes: { responses: [] } } } });
        assert.equal(r.status, 404);
        assert.equal(onlyError(r).title, 'Not Found');
      }
      const got = await call(server, 'GET', `/writer/writes/${wid}`, { key: world.sandbox.key });
      assert.equal(got.status, 200);
      assert.deepEqual(Object.keys(got.body.data.attributes).sort(), [
        'apdus',
        'expires_at',
        'operation',
        'reason',
        'round_trips',
        'started_at',
        'status',
        'step',
        'tag_id',
        'updated_at',
      ]);
      assert.equal(got.body.data.attributes.status, 'running');
      assert.equal(got.body.data.attributes.tag_id, id);
    });

    it('unknown and malformed ids: 404', async () => {
      const { server, world } = suite;
      assert.equal((await start(world.sandbox.key, 'tag_0000000000000000000000')).status, 404);
      assert.equal((await start(world.sandbox.key, 'nope')).status, 404);
      assert.equal((await call(server, 'GET', '/writer/writes/wrt_0000000000000000000000', { key: world.sandbox.key })).status, 404);
      assert.equal((await call(server, 'GET', '/writer/writes/x', { key: world.sandbox.key })).status, 404);
      const r = await call(server, 'POST', '/writer/writes/wrt_0000000000000000000000/responses', {
        key: world.sandbox.key,
        body: { data: { type: 'writes', attributes: { responses: [] } } },
      });
      assert.equal(r.status, 404);
    });

    it('malformed bodies: 400, missing tag_id or responses: 400 MissingAttribute, no write started', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      for (const body of [
        {},
        { data: [] },
        { data: { type: 'tags', attributes: { tag_id: id } } },
        { data: { type: 'writes' } },
        { data: { type: 'writes', attributes: { tag_id: 5 } } },
      ]) {
        const r = await call(server, 'POST', '/writer/writes', { key: world.sandbox.key, body });
        assert.equal(r.status, 400, JSON.stringify(body));
      }
      assert.equal(
        onlyError(await call(server, 'POST', '/writer/writes', { key: world.sandbox.key, body: { data: { type: 'writes', attributes: {} } } })).title,
        'A required attribute is missing',
      );
      assert.equal((await call(server, 'POST', '/writer/writes', { key: world.sandbox.key, body: '{"data":' })).status, 400);
      const started = await start(world.sandbox.key, id);
      const wid = started.body.data.id;
      const path = `/writer/writes/${wid}/responses`;
      const bad = [
        { data: { type: 'writes', attributes: {} } },
        { data: { type: 'writes', attributes: { responses: '9000' } } },
        { data: { type: 'writes', attributes: { responses: ['90'] } } },
        { data: { type: 'writes', attributes: { responses: ['9G00'] } } },
        { data: { type: 'writes', attributes: { responses: ['00'.repeat(259)] } } },
        { data: { type: 'writes', attributes: { responses: Array(65).fill('9000') } } },
        { data: { type: 'writes', attributes: { responses: [], removed: 'yes' } } },
        { data: { type: 'writes', attributes: { responses: [], round_trip: -1 } } },
        { data: { type: 'writes', id: 'wrt_0000000000000000000000', attributes: { responses: [] } } },
      ];
      for (const body of bad) assert.equal((await call(server, 'POST', path, { key: world.sandbox.key, body })).status, 400, JSON.stringify(body));
      // Limits: 258-byte R-APDU and 64 responses are accepted shapes (then too many for the step: failed).
      const ok = await call(server, 'POST', path, {
        key: world.sandbox.key,
        body: { data: { type: 'writes', attributes: { responses: Array(64).fill('00'.repeat(258)) } } },
      });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.data.attributes.reason.code, 'malformed_responses');
    });

    it('the OpenAPI document describes the three writer operations, their statuses and the responses attributes', async () => {
      const document = await (await fetch(`${suite.server.base}/openapi.json`)).json();
      const paths = Object.keys(document.paths).filter((p) => p.includes('/writer/'));
      const op = (suffix: string, method: string) => document.paths[paths.find((p) => p.endsWith(suffix))!]?.[method];
      assert.equal(paths.length, 3, paths.join(','));
      assert.deepEqual(Object.keys(op('/writer/writes', 'post').responses).sort(), ['201', '400', '401', '403', '404', '406', '409', '415', '429']);
      const responses = op('/responses', 'post');
      assert.deepEqual(Object.keys(responses.responses).sort(), ['200', '400', '401', '403', '404', '406', '409', '415', '429']);
      const body = JSON.stringify(responses.requestBody.content['application/vnd.api+json'].schema);
      for (const name of ['responses', 'removed', 'round_trip', 'abort']) assert.ok(body.includes(`"${name}"`), name);
      const start = op('/writer/writes', 'post').requestBody.content['application/vnd.api+json'].schema;
      const operation = start.properties.data.properties.attributes.properties.operation;
      assert.deepEqual(operation.enum, ['personalize', 'rekey']);
      assert.deepEqual(start.properties.data.properties.attributes.required, ['tag_id']);
      assert.deepEqual(Object.keys(op('/writer/writes/{id}', 'get').responses).sort(), ['200', '401', '403', '404', '406', '429']);
    });

    it('garbage answers from a "chip" end the write with a reason, never a 500', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const started = await start(world.sandbox.key, id);
      const r = await call(server, 'POST', `/writer/writes/${started.body.data.id}/responses`, {
        key: world.sandbox.key,
        body: { data: { type: 'writes', attributes: { responses: ['9000', '0102030405060791AF', '9100'] } } },
      });
      assert.equal(r.status, 200);
      assert.equal(r.body.data.attributes.status, 'failed');
      assert.equal(r.body.data.attributes.reason.code, 'unsupported_chip');
    });
  });
}
