// Path ids that are not ids (NUL, other prefixes, SQL, huge) answer 404 on every
// platform route that takes one, on both databases: the id check lives in each
// finder, so nothing malformed reaches the engine (PostgreSQL refuses NUL in text).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, call, sharedServer } from '../harness.js';
import { assertError } from '../tags/helpers.js';

const HOSTILE = ['%00', 'tag_%00', 'whk_0000000000000000000%00', '%27%20or%201%3D1--', 'x'.repeat(3000), '%F0%9F%98%80', '..%2F..'];
const ROUTES: [string, string, unknown?][] = [
  ['GET', '/tags/'],
  ['PATCH', '/tags/', (id: string) => ({ data: { type: 'tags', id, attributes: { comment: 'x' } } })],
  ['DELETE', '/tags/'],
  ['GET', '/webhooks/'],
  ['PATCH', '/webhooks/', (id: string) => ({ data: { type: 'webhooks', id, attributes: { enabled: false } } })],
  ['DELETE', '/webhooks/'],
  ['GET', '/verifications/'],
  ['GET', '/sessions/'],
  ['GET', '/keys/'],
  ['GET', '/teams/'],
];

for (const kind of DATABASES) {
  describe(`malformed path ids (${kind})`, () => {
    const suite = sharedServer(kind);
    test('every id route answers 404 (or 400 for a PATCH body that names another id), never 5xx', async () => {
      for (const [method, prefix, body] of ROUTES) {
        for (const id of HOSTILE) {
          const decoded = (() => {
            try {
              return decodeURIComponent(id);
            } catch {
              return id;
            }
          })();
          const response = await call(suite.server, method, prefix + id, { key: suite.world.sandbox.key, ...(body ? { body: (body as (id: string) => unknown)(decoded) } : {}) });
          assert.ok(response.status === 404 || (method === 'PATCH' && response.status === 400) || (id === '..%2F..' && response.status === 404), `${method} ${prefix}${id.slice(0, 40)} → ${response.status} ${response.text.slice(0, 200)}`);
        }
      }
    });

    test('a path that is not percent-encoded UTF-8 (a lone surrogate, a stray byte) is a JSON:API 404, not Fastify\'s own 400', async () => {
      for (const path of ['/teams/%ED%A0%80', '/tags/%FF', '/sessions/%E0%A4', '/nowhere/%C0']) {
        assertError(await call(suite.server, 'GET', path, { key: suite.world.sandbox.key }), 404);
      }
    });
  });
}
