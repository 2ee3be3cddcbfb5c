import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { revoke } from '../../src/keys/service.js';
import { DATABASES, call, onlyError, sharedServer, startServer } from '../kit/harness.js';
import { cliActor } from '../../src/audit/record.js';

const body = (attributes: Record<string, unknown>) => ({ data: { type: 'webhooks', attributes } });

for (const kind of DATABASES) {
  describe(`webhook resource (${kind})`, () => {
    const suite = sharedServer(kind);

    const create = (attributes: Record<string, unknown>, key = suite.world.sandbox.key) =>
      call(suite.server, 'POST', '/webhooks', { key, body: body(attributes) });

    test('POST answers 201 with the resource and a whsec_ secret shown only then', async () => {
      const created = await create({ url: 'https://hooks.example.com/in', events: ['tag.created'] });
      assert.equal(created.status, 201, created.text);
      const { id, attributes } = created.body.data;
      assert.match(id, /^whk_/);
      assert.equal(created.body.data.type, 'webhooks');
      assert.match(attributes.secret, /^whsec_/);
      assert.equal(Buffer.from(attributes.secret.slice(6), 'base64').length, 32);
      assert.deepEqual(attributes.events, ['tag.created']);
      assert.equal(attributes.enabled, true);
      const got = await call(suite.server, 'GET', `/webhooks/${id}`, { key: suite.world.sandbox.key });
      assert.equal(got.status, 200);
      assert.equal(got.body.data.attributes.secret, undefined);
      assert.equal(got.body.data.attributes.url, 'https://hooks.example.com/in');
    });

    test('the secret is stored sealed, never in clear', async () => {
      const created = await create({ url: 'https://hooks.example.com/sealed' });
      const row = await suite.server.ctx.db.kysely.selectFrom('webhooks').selectAll().where('id', '=', created.body.data.id).executeTakeFirstOrThrow();
      const secret: string = created.body.data.attributes.secret;
      for (const value of Object.values(row)) {
        assert.ok(!String(value).includes(secret.slice(6)) && !String(value).includes(Buffer.from(secret.slice(6), 'base64').toString('hex')));
      }
    });

    test('events default to all four kinds', async () => {
      const created = await create({ url: 'https://hooks.example.com/all' });
      assert.deepEqual(created.body.data.attributes.events, ['tag.created', 'tag.configured', 'tag.configuration_failed', 'tag.deleted']);
    });

    test('values that are wrong give 422 with one pointer and sentence each', async () => {
      const HTTPS = 'url must use https (TAPPROOF_ALLOW_HTTP_WEBHOOKS=true allows http for local development)';
      const LOOPBACK = 'url must not point to a loopback address (TAPPROOF_ALLOW_PRIVATE_WEBHOOKS=true allows it for local development)';
      const KINDS = 'tag.created, tag.configured, tag.configuration_failed, tag.deleted, verification.flagged, tag.rekeyed, case.opened, case.updated';
      const EVENTS = `events must be a non-empty list of: ${KINDS}`;
      const cases: [Record<string, unknown>, [string, string][]][] = [
        [{ url: 'http://hooks.example.com/' }, [['/data/attributes/url', HTTPS]]],
        [{ url: 'ftp://hooks.example.com/' }, [['/data/attributes/url', HTTPS]]],
        [{ url: 'not a url' }, [['/data/attributes/url', 'url must be an absolute URL']]],
        [{ url: 42 }, [['/data/attributes/url', 'url must be a non-empty string']]],
        [{ url: 'https://user:pw@hooks.example.com/' }, [['/data/attributes/url', 'url must not contain credentials']]],
        [{ url: 'https://127.0.0.1/' }, [['/data/attributes/url', LOOPBACK]]],
        [{ url: 'https://[::1]/' }, [['/data/attributes/url', LOOPBACK]]],
        [{ url: 'https://localhost/' }, [['/data/attributes/url', LOOPBACK]]],
        [
          { url: 'https://hooks.example.com/', events: ['tag.created', 'tag.exploded'] },
          [['/data/attributes/events/1', `unknown event kind; one of ${KINDS}`]],
        ],
        [{ url: 'https://hooks.example.com/', events: [] }, [['/data/attributes/events', EVENTS]]],
        [{ url: 'https://hooks.example.com/', events: 'tag.created' }, [['/data/attributes/events', EVENTS]]],
        [{ url: 'https://hooks.example.com/', events: ['tag.created', 'tag.created'] }, [['/data/attributes/events/1', 'tag.created is listed twice']]],
        [{ url: 'https://hooks.example.com/', enabled: false }, [['/data/attributes/enabled', 'enabled cannot be set by this operation']]],
        [
          { url: 'http://x', secret: 'whsec_x' },
          [
            ['/data/attributes/url', HTTPS],
            ['/data/attributes/secret', 'secret cannot be set by this operation'],
          ],
        ],
      ];
      for (const [attributes, pointers] of cases) {
        const response = await create(attributes);
        assert.equal(response.status, 422, JSON.stringify(attributes));
        assert.deepEqual(
          response.body.errors.map((e: any) => [e.status, e.source.pointer, e.detail]),
          pointers.map(([pointer, detail]) => ['422', pointer, detail]),
          JSON.stringify(attributes),
        );
      }
      const count = await suite.server.ctx.db.kysely
        .selectFrom('webhooks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('url', 'like', '%hooks.example.com/')
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 0);
    });

    test('shape problems give 400 as a malformed body, other media types 415', async () => {
      for (const bad of [
        {},
        { data: [] },
        { data: { type: 'tags', attributes: { url: 'https://a.example/' } } },
        { data: { type: 'webhooks' } },
        { data: { type: 'webhooks', id: 'whk_x', attributes: { url: 'https://a.example/' } } },
      ]) {
        const response = await call(suite.server, 'POST', '/webhooks', { key: suite.world.sandbox.key, body: bad });
        assert.equal(response.status, 400, JSON.stringify(bad));
        assert.deepEqual(
          response.body.errors.map((e: any) => e.title),
          ['Request body is malformed'],
        );
      }
      assert.equal((await call(suite.server, 'POST', '/webhooks', { key: suite.world.sandbox.key, body: body({ events: ['tag.created'] }) })).status, 400);
      assert.equal((await call(suite.server, 'POST', '/webhooks', { key: suite.world.sandbox.key, body: '{nope' })).status, 400);
      const wrongType = await call(suite.server, 'POST', '/webhooks', {
        key: suite.world.sandbox.key,
        body: JSON.stringify(body({ url: 'https://a.example/' })),
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(wrongType.status, 415);
    });

    test('http is accepted only where the operator allows it', async () => {
      const url = 'http://127.0.0.1:9/';
      // By default: refused, naming the rule and the setting that lifts it; nothing stored.
      const refused = await call(suite.server, 'POST', '/webhooks', { key: suite.world.sandbox.key, body: body({ url }) });
      assert.equal(refused.status, 422, refused.text);
      assert.deepEqual(
        refused.body.errors.map((e: any) => [e.source.pointer, e.detail]),
        [['/data/attributes/url', 'url must use https (TAPPROOF_ALLOW_HTTP_WEBHOOKS=true allows http for local development)']],
      );
      const stored = await suite.server.ctx.db.kysely.selectFrom('webhooks').select('id').where('url', '=', url).execute();
      assert.deepEqual(stored, []);
      const permissive = await startServer(kind, { TAPPROOF_ALLOW_HTTP_WEBHOOKS: '1', TAPPROOF_ALLOW_PRIVATE_WEBHOOKS: '1' });
      try {
        const w = await permissive.seedTeam();
        const created = await call(permissive, 'POST', '/webhooks', { key: w.sandbox.key, body: body({ url }) });
        assert.equal(created.status, 201, created.text);
        assert.equal(created.body.data.attributes.url, url);
        const read = await call(permissive, 'GET', `/webhooks/${created.body.data.id}`, { key: w.sandbox.key });
        assert.equal(read.body.data.attributes.url, url);
      } finally {
        await permissive.close();
      }
    });

    test('http and loopback urls (every spelling of a loopback name) → 422 naming the setting that allows them for local development', async () => {
      const loopback = 'url must not point to a loopback address (TAPPROOF_ALLOW_PRIVATE_WEBHOOKS=true allows it for local development)';
      const spellings = [
        'https://localhost../in',
        'https://localhost..:9000/in',
        'https://localhost%2E%2E/in',
        'https://a.localhost.../in',
        'https://%6cocalhost/in',
        'https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/in',
        'https://localhost\u3002/in',
        'https://localhost.localdomain./in',
        'https://localhost6/in',
        'https://localhost6.localdomain6/in',
        'https://ip6-localhost/in',
        'https://ip6-loopback/in',
        'https://0x7f.1/in',
        'https://[::1]/in',
        'https://[::ffff:127.0.0.1]/in',
      ];
      const cases: [string, string][] = [
        ...spellings.map((url): [string, string] => [url, loopback]),
        ['http://hooks.example.com/in', 'url must use https (TAPPROOF_ALLOW_HTTP_WEBHOOKS=true allows http for local development)'],
        ['https://localhost./in', 'url must not point to a loopback address (TAPPROOF_ALLOW_PRIVATE_WEBHOOKS=true allows it for local development)'],
        ['https://LOCALHOST.:8443/in', 'url must not point to a loopback address (TAPPROOF_ALLOW_PRIVATE_WEBHOOKS=true allows it for local development)'],
        ['https://a.localhost./in', 'url must not point to a loopback address (TAPPROOF_ALLOW_PRIVATE_WEBHOOKS=true allows it for local development)'],
        ['https://localhost/in', 'url must not point to a loopback address (TAPPROOF_ALLOW_PRIVATE_WEBHOOKS=true allows it for local development)'],
        ['https://127.0.0.1/in', 'url must not point to a loopback address (TAPPROOF_ALLOW_PRIVATE_WEBHOOKS=true allows it for local development)'],
        ['https://10.1.2.3/in', 'url must not point to a private address (TAPPROOF_ALLOW_PRIVATE_WEBHOOKS=true allows it for local development)'],
      ];
      for (const [url, detail] of cases) {
        const response = await create({ url });
        assert.equal(response.status, 422, url);
        assert.deepEqual(
          response.body.errors.map((e: any) => [e.source.pointer, e.detail]),
          [['/data/attributes/url', detail]],
          url,
        );
      }
    });

    test('PATCH changes url, events and enabled; 422 and 400 as for POST', async () => {
      const id = (await create({ url: 'https://hooks.example.com/p' })).body.data.id;
      const patched = await call(suite.server, 'PATCH', `/webhooks/${id}`, {
        key: suite.world.sandbox.key,
        body: { data: { type: 'webhooks', id, attributes: { url: 'https://hooks.example.com/q', events: ['tag.deleted'], enabled: false } } },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.data.attributes.url, 'https://hooks.example.com/q');
      assert.deepEqual(patched.body.data.attributes.events, ['tag.deleted']);
      assert.equal(patched.body.data.attributes.enabled, false);
      assert.equal(patched.body.data.attributes.secret, undefined);
      const invalid = await call(suite.server, 'PATCH', `/webhooks/${id}`, {
        key: suite.world.sandbox.key,
        body: { data: { type: 'webhooks', attributes: { events: ['nope'], enabled: 'yes' } } },
      });
      assert.equal(invalid.status, 422);
      assert.deepEqual(
        invalid.body.errors.map((e: any) => e.source.pointer),
        ['/data/attributes/events/0', '/data/attributes/enabled'],
      );
      const mismatch = await call(suite.server, 'PATCH', `/webhooks/${id}`, {
        key: suite.world.sandbox.key,
        body: { data: { type: 'webhooks', id: 'whk_other', attributes: {} } },
      });
      assert.equal(mismatch.status, 400);
    });

    test('rotate_secret returns a new secret once; the old one signs beside it for 24 hours', async () => {
      const created = await create({ url: 'https://hooks.example.com/r' });
      const id = created.body.data.id;
      const rotated = await call(suite.server, 'PATCH', `/webhooks/${id}`, {
        key: suite.world.sandbox.key,
        body: { data: { type: 'webhooks', attributes: { rotate_secret: true } } },
      });
      assert.equal(rotated.status, 200, rotated.text);
      assert.match(rotated.body.data.attributes.secret, /^whsec_/);
      assert.notEqual(rotated.body.data.attributes.secret, created.body.data.attributes.secret);
      const expires = Date.parse(rotated.body.data.attributes.previous_secret_expires_at);
      assert.ok(Math.abs(expires - Date.now() - 24 * 3600 * 1000) < 60_000);
    });

    test('DELETE answers 204, then the webhook is gone', async () => {
      const id = (await create({ url: 'https://hooks.example.com/d' })).body.data.id;
      assert.equal((await call(suite.server, 'DELETE', `/webhooks/${id}`, { key: suite.world.sandbox.key })).status, 204);
      assert.equal((await call(suite.server, 'GET', `/webhooks/${id}`, { key: suite.world.sandbox.key })).status, 404);
      assert.equal((await call(suite.server, 'DELETE', `/webhooks/${id}`, { key: suite.world.sandbox.key })).status, 404);
    });

    test('security: no key or a revoked key is 401; another team or mode is 404', async () => {
      const id = (await create({ url: 'https://hooks.example.com/s' })).body.data.id;
      const other = await suite.server.seedTeam({ name: 'other' });
      const patch = { data: { type: 'webhooks', attributes: { enabled: false } } };
      for (const [method, path, b] of [
        ['GET', `/webhooks/${id}`],
        ['PATCH', `/webhooks/${id}`, patch],
        ['DELETE', `/webhooks/${id}`],
        ['POST', '/webhooks', body({ url: 'https://a.example/' })],
      ] as const) {
        const anonymous = await call(suite.server, method, path, { body: b });
        assert.equal(anonymous.status, 401, `${method} ${path}`);
        assert.equal(onlyError(anonymous).status, '401');
        if (method === 'POST') continue;
        for (const key of [other.sandbox.key, suite.world.production.key]) {
          const foreign = await call(suite.server, method, path, { key, body: b });
          assert.equal(foreign.status, 404, `${method} ${path}`);
          assert.equal(onlyError(foreign).title, 'Not Found');
        }
      }
      const revoked = await suite.server.seedTeam({ name: 'revoked' });
      await revoke(suite.server.ctx, revoked.sandbox.id, cliActor());
      assert.equal((await create({ url: 'https://a.example/' }, revoked.sandbox.key)).status, 401);
      assert.equal((await call(suite.server, 'GET', `/webhooks/${id}`, { key: suite.world.sandbox.key })).body.data.attributes.enabled, true);
    });
  });
}
