// Hostile inputs (docs/hardening.md#hostile-input), each answered cleanly on both databases
// through the real HTTP server: exact statuses, bodies and pointers, never a 5xx.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, call, sharedServer } from '../kit/harness.js';
import { refusedBecause } from '../../src/webhooks/address.js';
import { MAX_SDM_PARAMETERS, candidateTagUrls } from '../../src/verifications/scan-url.js';

const webhook = (attributes: Record<string, unknown>) => ({ data: { type: 'webhooks', attributes } });

// Every IPv6 form that embeds an IPv4 address, with a private (169.254.169.254 / 10.0.0.1) inside.
const EMBEDDED_PRIVATE = [
  '64:ff9b::a9fe:a9fe', // well-known NAT64
  '64:ff9b:1::a9fe:a9fe', // local-use NAT64 (RFC 8215)
  '64:ff9b:1:a9fe:a9:fe00::', // local-use NAT64, /56 layout
  '::ffff:0:a9fe:a9fe', // IPv4-translated
  '::ffff:a9fe:a9fe', // IPv4-mapped
  '::a9fe:a9fe', // IPv4-compatible
  '2002:a9fe:a9fe::1', // 6to4
  '2001:0:a00:1::', // Teredo, private server
  '2001:0:4136:e378:8000:63bf:f5ff:fffe', // Teredo, obfuscated client 10.0.0.1
];

describe('webhook address filter (unit)', () => {
  for (const a of EMBEDDED_PRIVATE) test(`refuses ${a}`, () => assert.notEqual(refusedBecause(a), null));
  for (const a of ['64:ff9b::808:808', '::ffff:8.8.8.8', '::ffff:808:808', '2606:4700:4700::1111'])
    test(`allows ${a}`, () => assert.equal(refusedBecause(a), null));
});

describe('scan url candidates (unit)', () => {
  test('a 3 KB url of & gives at most MAX_SDM_PARAMETERS candidates, the last ones', () => {
    const scanned = 'https://brand.example/p/1?' + '&'.repeat(3000);
    const candidates = candidateTagUrls(scanned);
    assert.equal(MAX_SDM_PARAMETERS, 8);
    assert.equal(candidates.length, MAX_SDM_PARAMETERS);
    assert.deepEqual(
      candidates.map((c) => c.sdmStart),
      Array.from({ length: 8 }, (_, i) => scanned.length - 8 + i),
    );
  });
  test('a tag url with its own query still yields the tag url before the chip parameters, in order', () => {
    const scanned = 'https://b.example/p?a=1&b=2&picc_data=00&enc=11&cmac=22';
    assert.deepEqual(
      candidateTagUrls(scanned).map((c) => c.url),
      [
        'https://b.example/p',
        'https://b.example/p?a=1',
        'https://b.example/p?a=1&b=2',
        'https://b.example/p?a=1&b=2&picc_data=00',
        'https://b.example/p?a=1&b=2&picc_data=00&enc=11',
      ],
    );
  });
});

for (const kind of DATABASES) {
  describe(`hostile inputs (${kind})`, () => {
    const suite = sharedServer(kind);
    const key = () => suite.world.sandbox.key;

    test('webhook urls whose IPv6 literal embeds a non-public IPv4 answer 422 with the url pointer', async () => {
      for (const address of EMBEDDED_PRIVATE) {
        const response = await call(suite.server, 'POST', '/webhooks', { key: key(), body: webhook({ url: `https://[${address}]/` }) });
        assert.equal(response.status, 422, `${address}: ${response.text}`);
        assert.deepEqual(
          response.body.errors.map((e: any) => [e.status, e.source.pointer]),
          [['422', '/data/attributes/url']],
          address,
        );
      }
      for (const address of ['64:ff9b::808:808', '::ffff:808:808']) {
        const response = await call(suite.server, 'POST', '/webhooks', { key: key(), body: webhook({ url: `https://[${address}]/` }) });
        assert.equal(response.status, 201, `${address}: ${response.text}`);
      }
    });

    test('a body-less DELETE with Content-Type and Content-Length: 0 is a DELETE without a body', async () => {
      const created = await call(suite.server, 'POST', '/webhooks', { key: key(), body: webhook({ url: 'https://hooks.example.com/empty-delete' }) });
      assert.equal(created.status, 201, created.text);
      const response = await call(suite.server, 'DELETE', `/webhooks/${created.body.data.id}`, {
        key: key(),
        headers: { 'content-type': 'application/vnd.api+json', 'content-length': '0' },
      });
      assert.equal(response.status, 204, response.text);
      assert.equal(response.text, '');
      assert.equal((await call(suite.server, 'GET', `/webhooks/${created.body.data.id}`, { key: key() })).status, 404);
      // A route that needs a body still says so, as it does for a request without Content-Type.
      const empty = await call(suite.server, 'POST', '/tags', { key: key(), headers: { 'content-type': 'application/vnd.api+json', 'content-length': '0' } });
      const none = await call(suite.server, 'POST', '/tags', { key: key() });
      assert.equal(empty.status, 400, empty.text);
      assert.deepEqual([empty.status, empty.body], [none.status, none.body]);
    });

    test('an unsupported method on an existing path answers 405 with Allow and a JSON:API error', async () => {
      const cases: [string, string, string][] = [
        ['PUT', '/tags', 'DELETE, GET, HEAD, PATCH, POST'],
        ['PUT', '/tags/tag_0000000000000000000000', 'DELETE, GET, HEAD, PATCH'],
        ['POST', '/webhooks/whk_0000000000000000000000', 'DELETE, GET, HEAD, PATCH'],
      ];
      for (const [method, path, allow] of cases) {
        const response = await call(suite.server, method, path, { key: key() });
        assert.equal(response.status, 405, `${method} ${path}: ${response.text}`);
        assert.equal(response.headers.get('allow'), allow, `${method} ${path}`);
        assert.equal(response.headers.get('content-type'), 'application/vnd.api+json');
        assert.deepEqual(response.body, { errors: [{ status: '405', title: 'Method Not Allowed' }] });
      }
      const unknown = await call(suite.server, 'PUT', '/nowhere', { key: key() });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.headers.get('allow'), null);
    });

    test('control characters and lone surrogates in every stored string answer 422 with the pointer, nothing stored', async () => {
      const bad = ['\u0000', '\t', '\n', '\r', '\u001f', '\u007f', '\ud800', '\udc00', 'x\udc00\ud800'];
      const tags = () => suite.server.ctx.db.kysely.selectFrom('tags').select('id').where('team_id', '=', suite.world.teamId).execute();
      const before = (await tags()).length;
      for (const c of bad) {
        const label = JSON.stringify(c);
        const created = await call(suite.server, 'POST', '/tags', {
          key: key(),
          body: {
            data: [
              { type: 'tags', attributes: { protocol: 'ntag_424_dna', url: `https://brand.example/p/${c}1` } },
              { type: 'tags', attributes: { protocol: 'ntag_424_dna', url: 'https://brand.example/p/fine', comment: `a${c}b` } },
            ],
          },
        });
        assert.equal(created.status, 422, `${label}: ${created.text}`);
        assert.deepEqual(
          created.body.errors.map((e: any) => e.source.pointer),
          ['/data/0/attributes/url', '/data/1/attributes/comment'],
          label,
        );
        const hook = await call(suite.server, 'POST', '/webhooks', { key: key(), body: webhook({ url: `https://hooks.example.com/a${c}b` }) });
        assert.equal(hook.status, 422, `${label}: ${hook.text}`);
        assert.deepEqual(
          hook.body.errors.map((e: any) => e.source.pointer),
          ['/data/attributes/url'],
          label,
        );
      }
      assert.equal((await tags()).length, before);
      // A well-formed pair (an emoji) is fine, and a PATCH follows the same rule.
      const ok = await call(suite.server, 'POST', '/tags', {
        key: key(),
        body: {
          data: [{ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: 'https://brand.example/p/\ud83d\ude00', comment: 'caf\u00e9 \ud83d\ude00' } }],
        },
      });
      assert.equal(ok.status, 201, ok.text);
      const id = ok.body.data[0].id;
      assert.equal((await call(suite.server, 'GET', `/tags/${id}`, { key: key() })).body.data.attributes.comment, 'caf\u00e9 \ud83d\ude00');
      const patched = await call(suite.server, 'PATCH', `/tags/${id}`, { key: key(), body: { data: { type: 'tags', id, attributes: { comment: 'a\nb' } } } });
      assert.equal(patched.status, 422, patched.text);
      assert.deepEqual(
        patched.body.errors.map((e: any) => e.source.pointer),
        ['/data/attributes/comment'],
      );
    });

    test('a scanned url with NUL or a lone surrogate answers 422 on the url like another invalid url, never 500', async () => {
      for (const url of ['https://brand.example/p/1\u0000?picc_data=00&cmac=00', 'https://brand.example/p/1\ud800?picc_data=00&cmac=00']) {
        const response = await call(suite.server, 'POST', '/verifications', { key: key(), body: { data: { type: 'verifications', attributes: { url } } } });
        assert.equal(response.status, 422, response.text);
        assert.deepEqual(
          response.body.errors.map((e: any) => [e.status, e.source.pointer]),
          [['422', '/data/attributes/url']],
        );
      }
    });

    test('a crafted scan url of 3 KB of & answers like any unknown url (no 5xx)', async () => {
      const plain = await call(suite.server, 'POST', '/verifications', {
        key: key(),
        body: { data: { type: 'verifications', attributes: { url: 'https://brand.example/p/1?picc_data=00&cmac=00' } } },
      });
      const crafted = await call(suite.server, 'POST', '/verifications', {
        key: key(),
        body: { data: { type: 'verifications', attributes: { url: 'https://brand.example/p/1?' + '&'.repeat(3000) } } },
      });
      // No configured tag has either url: the spec's 404, the same document for both.
      assert.equal(plain.status, 404, plain.text);
      assert.equal(crafted.status, 404, crafted.text);
      assert.deepEqual(crafted.body, plain.body);
    });

    test('X-Request-Id: a short printable id is kept, anything else is replaced by a server id', async () => {
      const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
      const idOf = async (value?: string) =>
        (await call(suite.server, 'GET', '/tags', { key: key(), headers: value === undefined ? {} : { 'x-request-id': value } })).headers.get('x-request-id');
      assert.equal(await idOf('abc-123_XYZ:trace/1'), 'abc-123_XYZ:trace/1');
      assert.equal(await idOf('x'.repeat(128)), 'x'.repeat(128));
      for (const bad of ['x'.repeat(129), 'x'.repeat(8000), 'a b', 'a\tb', 'caf\u00e9', '']) {
        const id = await idOf(bad === 'caf\u00e9' ? 'caf\u00c3\u00a9' : bad);
        assert.match(id ?? '', uuid, JSON.stringify(bad.slice(0, 20)));
      }
      assert.match((await idOf()) ?? '', uuid);
      assert.notEqual(await idOf(), await idOf());
    });
  });
}
