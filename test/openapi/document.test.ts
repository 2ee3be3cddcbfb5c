// The served OpenAPI document declares what the server actually speaks:
// application/vnd.api+json bodies (never application/json, which gets 415/406)
// and named component schemas a generator can turn into type names; plain-text
// 429s; and query parameters with exactly the rules the server enforces.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { allowedRoles } from '../../src/http/access.js';
import { call, DATABASES, startServer, type TestServer } from '../kit/harness.js';
import { ROUTES } from '../http/routes.js';

const operations = (document: any) =>
  Object.entries<any>(document.paths).flatMap(([path, item]) =>
    Object.entries<any>(item)
      .filter(([method]) => method !== 'servers')
      .map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })),
  );

for (const kind of DATABASES)
  describe(`openapi.json (${kind})`, () => {
    let server: TestServer;
    let document: any;
    let key: string;
    before(async () => {
      server = await startServer(kind);
      key = (await server.seedTeam()).sandbox.key;
      const response = await fetch(`${server.base}/openapi.json`);
      assert.equal(response.status, 200);
      document = await response.json();
    });
    after(() => server.close());

    test('every platform request and JSON response body is application/vnd.api+json', () => {
      let bodies = 0;
      for (const [path, methods] of Object.entries<any>(document.paths)) {
        // The extension API and the console's sign-in are plain JSON by design.
        if (path.startsWith('/ext/') || path.startsWith('/auth/')) continue;
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

    test("the console's sign-in is documented: plain JSON bodies, JSON:API errors, the cookie credential named per operation", () => {
      const auth = operations(document).filter(({ where }) => where.includes(' /auth/'));
      assert.deepEqual(auth.map(({ op }) => op.operationId).sort(), [
        'finishSingleSignOn',
        'getConsoleSession',
        'getSignInMethods',
        'inspectLink',
        'passkeyRegistrationOptions',
        'passkeySignInOptions',
        'registerPasskey',
        'setPasswordWithLink',
        'setSessionMode',
        'signIn',
        'signInWithPasskey',
        'signOut',
        'startSingleSignOn',
      ]);
      for (const { where, op } of auth) {
        assert.deepEqual(
          document.paths[where.split(' ')[1]!].servers.map((s: any) => s.url),
          ['/'],
          where,
        );
        if (op.requestBody) assert.deepEqual(Object.keys(op.requestBody.content), ['application/json'], where);
        for (const [status, response] of Object.entries<any>(op.responses)) {
          if (!response.content || status === '429') continue;
          const type = Number(status) < 400 ? 'application/json' : 'application/vnd.api+json';
          assert.deepEqual(Object.keys(response.content), [type], `${where} ${status}`);
        }
        assert.ok(Array.isArray(op.security), `${where} names its credential`);
      }
      const byId = (id: string) => auth.find(({ op }) => op.operationId === id)!.op;
      assert.deepEqual(byId('signIn').security, []);
      assert.deepEqual(byId('setSessionMode').security, [{ session: [], csrf: [] }]);
      assert.deepEqual(byId('getConsoleSession').security, [{}, { session: [] }]);
      assert.deepEqual(document.components.securitySchemes.session, {
        type: 'apiKey',
        in: 'cookie',
        name: 'tapproof_session',
        description: 'The console session a sign-in under /auth sets (HttpOnly, SameSite=Strict)',
      });
      assert.equal(document.components.securitySchemes.csrf.name, 'X-CSRF-Token');
      assert.deepEqual(byId('signIn').requestBody.content['application/json'].schema.required, ['email', 'password']);
      // A platform read takes a key or the session; a platform change made with the session needs its CSRF token too.
      assert.deepEqual(document.paths['/tags'].get.security, [{ bearer: [] }, { session: [] }]);
      assert.deepEqual(document.paths['/tags'].post.security, [{ bearer: [] }, { session: [], csrf: [] }]);
    });

    test('component schemas are named, not def-N', () => {
      const names = Object.keys(document.components.schemas);
      assert.ok(names.includes('Tag') && names.includes('ErrorDocument'), names.join(','));
      assert.ok(!names.some((name) => /^def-\d+$/.test(name)), names.join(','));
      assert.ok(!JSON.stringify(document).includes('#/components/schemas/def-'));
    });

    test('every operation declares 429 as text/plain, platform and extension alike', () => {
      const all = operations(document);
      assert.equal(all.length, 81);
      for (const { where, op } of all)
        assert.deepEqual(op.responses['429'].content, { 'text/plain': { schema: { type: 'string', const: 'Too Many Requests' } } }, where);
    });

    test('every operation, webhook included, has a unique camelCase operationId and a description for each response', () => {
      const webhooks = Object.entries<any>(document.webhooks).map(([name, item]) => ({ where: `webhook ${name}`, op: item.post }));
      const all = [...operations(document), ...webhooks];
      const ids = all.map(({ where, op }) => {
        assert.match(
          op.operationId ?? '',
          /^(create|get|list|export|update|delete|roll|revoke|invite|reset|tag|verification|webhook|sign|set|inspect|passkey|register|start|finish|case)[A-Z][A-Za-z]*$/,
          where,
        );
        for (const [status, response] of Object.entries<any>(op.responses)) {
          assert.ok(response.description && response.description !== 'Default Response', `${where} ${status}: ${response.description}`);
        }
        return op.operationId;
      });
      assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
      assert.ok(!JSON.stringify(document).includes('Default Response'));
      const byPath = (path: string, method: string) => document.paths[path][method].operationId;
      assert.deepEqual(
        [
          byPath('/tags', 'post'),
          byPath('/tags', 'get'),
          byPath('/tags/{id}', 'get'),
          byPath('/verifications', 'post'),
          byPath('/ext/claims', 'post'),
          byPath('/ext/sandbox/claims', 'post'),
        ],
        ['createTags', 'listTags', 'getTag', 'createVerification', 'createClaim', 'createSandboxClaim'],
      );
    });

    test('string choices are one enum (protocol, status, reason), never an anyOf of single values', () => {
      const protocol = { type: 'string', enum: ['ntag_424_dna', 'ntag_424_dna_tag_tamper', 'ntag_223_dna'] };
      assert.deepEqual(document.components.schemas.Tag.properties.attributes.properties.protocol, protocol);
      const created = document.paths['/tags'].post.requestBody.content['application/vnd.api+json'].schema.properties.data.items.properties.attributes;
      assert.deepEqual(created.properties.protocol, protocol);
      JSON.stringify(document, (key, value) => {
        if (value && Array.isArray(value.anyOf))
          assert.ok(!value.anyOf.every((m: any) => Array.isArray(m.enum) && m.enum.length === 1), `${key}: ${JSON.stringify(value)}`);
        return value;
      });
    });

    test('every platform operation lists the roles of key it admits, and declares 403 unless it admits every role', () => {
      for (const route of ROUTES) {
        const path = route.pattern.replace(/:(\w+)/g, '{$1}');
        const op = document.paths[path][route.method.toLowerCase()];
        const where = `${route.method} ${route.pattern}`;
        assert.deepEqual(op['x-tapproof-roles'], allowedRoles(route.access), where);
        assert.equal('403' in op.responses, route.access !== 'any', where);
      }
      for (const { where, op } of operations(document).filter(({ where }) => where.includes(' /ext/')))
        assert.equal(op['x-tapproof-roles'], undefined, `${where}: the extension API needs no key`);
    });

    test('the title is the API’s name and the version a release number', () => {
      assert.deepEqual([document.info.title, document.info.version], ['tapproof platform API', '1.0.0']);
    });

    test('webhooks: one signed POST per event type, with its payload', () => {
      assert.deepEqual(Object.keys(document.webhooks), [
        'tag.created',
        'tag.configured',
        'tag.configuration_failed',
        'tag.deleted',
        'verification.flagged',
        'tag.rekeyed',
        'case.opened',
        'case.updated',
        'webhook.test',
      ]);
      for (const [type, item] of Object.entries<any>(document.webhooks)) {
        assert.deepEqual(
          item.post.parameters.map((p: any) => [p.in, p.name, p.required]),
          [
            ['header', 'webhook-id', true],
            ['header', 'webhook-timestamp', true],
            ['header', 'webhook-signature', true],
          ],
          type,
        );
        const schema = item.post.requestBody.content['application/json'].schema;
        assert.deepEqual(schema.properties.type, { const: type, type: 'string' }, type);
        if (type === 'verification.flagged') {
          // The verification, its tag and its signals; listed by a webhook only when it asks for them.
          assert.equal(schema.properties.data.properties.type.const, 'verifications');
          assert.deepEqual(schema.properties.tag, { $ref: '#/components/schemas/Tag' });
          assert.deepEqual(schema.properties.signals.items.enum, ['counter_gap', 'country_jump', 'replay_burst', 'tamper_opened', 'tamper_open']);
          assert.deepEqual(schema.required, ['type', 'timestamp', 'data', 'tag', 'signals', 'scans']);
          assert.deepEqual(schema.properties.scans.patternProperties, { '^(.*)$': { type: 'integer', minimum: 1 } });
          assert.match(item.post.description, /Opt-in/);
          continue;
        }
        if (type === 'case.opened' || type === 'case.updated') {
          // The case as it is now and its tag; case.updated says what changed. Opt-in.
          assert.equal(schema.properties.data.properties.type.const, 'cases');
          assert.deepEqual(schema.properties.tag.anyOf, [{ $ref: '#/components/schemas/Tag' }, { type: 'null' }]);
          assert.deepEqual(schema.required, ['type', 'timestamp', 'data', 'tag', ...(type === 'case.updated' ? ['changes'] : [])]);
          assert.match(item.post.description, /Opt-in/);
          continue;
        }
        if (type === 'webhook.test') {
          // Sent by POST /webhooks/{id}/test to that webhook alone: no tag, the webhook and a sentence.
          assert.deepEqual(schema.properties.data.required, ['webhook_id', 'message']);
          assert.deepEqual(schema.required, ['type', 'timestamp', 'data']);
          assert.match(item.post.description, /POST \/webhooks\/\{id\}\/test/);
          continue;
        }
        assert.deepEqual(schema.properties.data, { $ref: '#/components/schemas/Tag' }, type);
        if (type === 'tag.rekeyed') {
          // The tag and the write that rekeyed its chip; opt-in like verification.flagged.
          assert.deepEqual(schema.required, ['type', 'timestamp', 'data', 'write_id'], type);
          assert.match(item.post.description, /Opt-in/);
          continue;
        }
        assert.deepEqual(schema.required, ['type', 'timestamp', 'data'], type);
        assert.equal('reason' in schema.properties, type === 'tag.configuration_failed', type);
      }
    });

    test('GET /tags declares every query parameter with the rules the server enforces', () => {
      const parameters = Object.fromEntries(document.paths['/tags'].get.parameters.map((p: any) => [p.name, { in: p.in, required: p.required, ...p.schema }]));
      const integer = { in: 'query', required: false, type: 'integer', minimum: 1, maximum: 999_999_999_999_999 };
      assert.deepEqual(parameters, {
        page: { ...integer, default: 1 },
        page_size: { ...integer, default: 10 },
        q: { in: 'query', required: false, type: 'string', pattern: '^[^\\u0000]*$' },
        status: { in: 'query', required: false, type: 'string', enum: ['created', 'configured'] },
        url: { in: 'query', required: false, type: 'string', minLength: 1 },
        uid: { in: 'query', required: false, type: 'string', pattern: '^[0-9A-Fa-f]{14}$' },
        'order_by[]': {
          in: 'query',
          required: false,
          type: 'array',
          uniqueItems: true,
          items: { type: 'string', enum: ['id', 'protocol', 'inserted_at', 'updated_at', 'configured_at', 'comment', 'url', 'status'] },
        },
        'order_directions[]': { in: 'query', required: false, type: 'array', items: { type: 'string', enum: ['asc', 'desc'] } },
      });
    });

    test('GET /tags: values the document allows are accepted, values it rules out are 400', async () => {
      const schemas = Object.fromEntries(document.paths['/tags'].get.parameters.map((p: any) => [p.name, p.schema]));
      const status = async (query: string) => (await call(server, 'GET', `/tags?${query}`, { key })).status;
      for (const name of ['page', 'page_size']) {
        const { minimum, maximum } = schemas[name];
        assert.deepEqual(
          [
            await status(`${name}=${minimum}`),
            await status(`${name}=${maximum}`),
            await status(`${name}=${minimum - 1}`),
            await status(`${name}=${maximum + 1}`),
            await status(`${name}=1.5`),
          ],
          [200, 200, 400, 400, 400],
          name,
        );
      }
      assert.deepEqual([await status('q=abc'), await status('q=a%00b')], [200, 400]);
      assert.deepEqual(
        [await status('url=https%3A%2F%2Fa.example%2F'), await status('url=https%3A%2F%2Fa.example%2F*'), await status('url=')],
        [200, 200, 400],
      );
      assert.deepEqual(
        await Promise.all(['04a1b2c3d4e5f6', '04A1B2C3D4E5F6', '04A1B2C3D4E5F', '04A1B2C3D4E5FG'].map((uid) => status(`uid=${uid}`))),
        ['04a1b2c3d4e5f6', '04A1B2C3D4E5F6', '04A1B2C3D4E5F', '04A1B2C3D4E5FG'].map((uid) => (new RegExp(schemas.uid.pattern).test(uid) ? 200 : 400)),
      );
      assert.deepEqual(
        await Promise.all([...schemas.status.enum.map((s: string) => status(`status=${s}`)), status('status=deleted'), status('colour=red')]),
        [200, 200, 400, 400],
      );
      for (const field of schemas['order_by[]'].items.enum)
        for (const direction of schemas['order_directions[]'].items.enum)
          assert.equal(await status(`order_by[]=${field}&order_directions[]=${direction}`), 200, `${field} ${direction}`);
      assert.equal(await status('order_by[]=team_id'), 400);
      assert.equal(await status('order_by[]=id&order_directions[]=up'), 400);
      assert.equal(await status('order_by[]=id&order_by[]=id'), 400, 'uniqueItems');
    });

    test('GET /ext/claims declares resource_url as required, 1 to 2048 characters', () => {
      const [parameter] = document.paths['/ext/claims'].get.parameters;
      assert.deepEqual(
        { name: parameter.name, required: parameter.required, minLength: parameter.schema.minLength, maxLength: parameter.schema.maxLength },
        { name: 'resource_url', required: true, minLength: 1, maxLength: 2048 },
      );
    });
  });

describe('429 (sqlite)', () => {
  test('a refused request is answered in the media type the document declares', async () => {
    const server = await startServer('sqlite', { TAPPROOF_RATE_LIMIT: '1' });
    try {
      const declared = Object.keys((await (await fetch(`${server.base}/openapi.json`)).json()).paths['/tags'].get.responses['429'].content);
      const refused = await call(server, 'GET', '/tags');
      assert.equal(refused.status, 429);
      assert.deepEqual([refused.headers.get('content-type')!.split(';')[0], refused.text], [...declared, 'Too Many Requests']);
    } finally {
      await server.close();
    }
  });
});
