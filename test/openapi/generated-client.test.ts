// A client generated from the served openapi.json (openapi-typescript types,
// openapi-fetch requests) drives the platform through create → list → patch →
// delete → verify on the real server. Every request carries exactly the media
// types the document declares for its operation, and every response must come
// back in a media type the document declares for its status.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import createClient, { type Middleware } from 'openapi-fetch';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { emulated, tapUrl } from '../verifications/helpers.js';
import { clientTypes, extensionTypes, GENERATED, GENERATED_EXTENSION } from './client-types.js';
import type { paths } from '../../packages/sdk/src/generated/platform-api.js';

type Document = { paths: Record<string, Record<string, { requestBody?: { content: object }; responses: Record<string, { content?: object }> }>> };

/** Sends the operation's declared media types and records each response the document does not declare. */
function declaredMediaTypes(document: Document, problems: string[]): Middleware {
  const operation = (request: Request, schemaPath: string) => document.paths[schemaPath]![request.method.toLowerCase()]!;
  return {
    onRequest({ request, schemaPath }) {
      const op = operation(request, schemaPath);
      if (op.requestBody) {
        const declared = Object.keys(op.requestBody.content);
        assert.equal(declared.length, 1, `${request.method} ${schemaPath} request media types`);
        request.headers.set('content-type', declared[0]!);
      }
      request.headers.set('accept', [...new Set(Object.values(op.responses).flatMap((r) => Object.keys(r.content ?? {})))].join(', '));
      return request;
    },
    onResponse({ request, response, schemaPath }) {
      const where = `${request.method} ${schemaPath} ${response.status}`;
      const declared = document.paths[schemaPath]![request.method.toLowerCase()]!.responses[String(response.status)];
      const type = response.headers.get('content-type')?.split(';')[0];
      if (!declared) problems.push(`${where}: status not declared`);
      else if (type !== undefined && !(type in (declared.content ?? {}))) problems.push(`${where}: ${type} not declared`);
      return response;
    },
  };
}

for (const kind of DATABASES) {
  describe(`generated client (${kind})`, () => {
    const suite = sharedServer(kind);
    let document: Document;
    before(async () => {
      document = await (await fetch(`${suite.server.base}/openapi.json`)).json();
    });
    const clientFor = (doc: Document, problems: string[]) => {
      const client = createClient<paths>({ baseUrl: suite.server.base, headers: { authorization: `Bearer ${suite.world.sandbox.key}` } });
      client.use(declaredMediaTypes(doc, problems));
      return client;
    };

    test('the committed types are what openapi-typescript makes of the served document', async () => {
      assert.equal(await clientTypes(document), readFileSync(GENERATED, 'utf8'), 'stale generated types: run npm run openapi:types');
      assert.equal(await extensionTypes(document), readFileSync(GENERATED_EXTENSION, 'utf8'), 'stale generated types: run npm run openapi:types');
    });

    test('create → list → patch → delete → verify through openapi-fetch', async () => {
      const problems: string[] = [];
      const client = clientFor(document, problems);
      const base = `https://example.com/generated/${kind}`;

      const created = await client.POST('/tags', {
        body: {
          data: [
            { type: 'tags', attributes: { protocol: 'ntag_424_dna', url: `${base}/a`, comment: 'alpha' } },
            { type: 'tags', attributes: { protocol: 'ntag_223_dna', url: `${base}/b`, session_duration: 60 } },
          ],
        },
      });
      assert.equal(created.response.status, 201);
      const [a, b] = created.data!.data;
      assert.deepEqual([a!.attributes.comment, b!.attributes.session_duration], ['alpha', 60]);

      // Both directions: the array parameters reach the server as the document names them.
      for (const [direction, first] of [
        ['asc', a],
        ['desc', b],
      ] as const) {
        const listed = await client.GET('/tags', { params: { query: { page_size: 1, 'order_by[]': ['url', 'id'], 'order_directions[]': [direction] } } });
        assert.equal(listed.response.status, 200);
        assert.deepEqual(listed.data!.meta, { total_count: 2, page: 1, page_size: 1 });
        assert.deepEqual(
          listed.data!.data.map((tag) => tag.id),
          [first!.id],
          direction,
        );
      }

      const patched = await client.PATCH('/tags/{id}', {
        params: { path: { id: a!.id } },
        body: { data: { type: 'tags', id: a!.id, attributes: { comment: null, session_duration: 30 } } },
      });
      assert.equal(patched.response.status, 200);
      assert.deepEqual([patched.data!.data.attributes.comment, patched.data!.data.attributes.session_duration], [null, 30]);

      const bulk = await client.PATCH('/tags', { body: { data: [{ type: 'tags', id: b!.id, attributes: { comment: 'beta' } }] } });
      assert.equal(bulk.response.status, 200);
      assert.deepEqual(
        bulk.data!.data.map((tag) => tag.attributes.comment),
        ['beta'],
      );

      const deleted = await client.DELETE('/tags/{id}', { params: { path: { id: a!.id } } });
      assert.equal(deleted.response.status, 204);
      const gone = await client.GET('/tags/{id}', { params: { path: { id: a!.id } } });
      assert.equal(gone.response.status, 404);
      assert.deepEqual(gone.error, { errors: [{ status: '404', title: 'Not Found' }] });
      const removed = await client.DELETE('/tags', { body: { data: [{ type: 'tags', id: b!.id }] } });
      assert.deepEqual([removed.response.status, removed.data!.meta], [200, { deleted: [b!.id], kept: [] }]);

      // The chip side of a scan is the sandbox emulator; the verification goes through the client.
      const chip = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna');
      const verified = await client.POST('/verifications', {
        body: { data: { type: 'verifications', attributes: { url: await tapUrl(suite.server, chip.id) } } },
      });
      assert.equal(verified.response.status, 201);
      assert.deepEqual(
        [verified.data!.data.attributes.genuine, verified.data!.data.attributes.reason, verified.data!.data.attributes.tag_id],
        [true, 'ok', chip.id],
      );

      assert.deepEqual(problems, []);
    });

    test('a stock client sending application/json is answered in JSON:API, as the document declares', async () => {
      const plain: Document = structuredClone(document);
      const post = plain.paths['/tags']!.post!;
      post.requestBody = { content: { 'application/json': Object.values(post.requestBody!.content)[0] } };
      const problems: string[] = [];
      const created = await clientFor(plain, problems).POST('/tags', {
        body: { data: [{ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: `https://example.com/plain-json/${kind}` } }] },
      });
      assert.equal(created.response.status, 201);
      assert.equal(created.response.headers.get('content-type'), 'application/vnd.api+json');
      assert.deepEqual(
        created.data!.data.map((tag) => tag.attributes.url),
        [`https://example.com/plain-json/${kind}`],
      );
      assert.deepEqual(problems, []);
    });
  });
}
