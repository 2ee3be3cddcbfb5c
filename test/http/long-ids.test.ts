// A path id longer than the router reads (16,384 characters) names no resource: 404 on the platform API and
// the extension API alike, with or without a key, and no error in the log. Against `tapproof serve`, whose log
// is the operator's. A longer request head is Node's 431, before any route.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { createKey } from '../../src/keys/service.js';
import { createTeam } from '../../src/teams/service.js';
import { LOGGED_URL_MAX } from '../../src/http/request-log.js';
import { startServe, type ServeProcess } from '../cli/process.js';
import { DATABASES, call, freshStorage, type Storage } from '../kit/harness.js';

/** The router's limit (src/app.ts, maxParamLength). */
const LIMIT = 16 * 1024;
const NOT_FOUND = '{"errors":[{"status":"404","title":"Not Found"}]}';
const UNAUTHORIZED = '{"errors":[{"status":"401","title":"Missing, invalid, revoked or expired API key"}]}';

for (const kind of DATABASES) {
  describe(`path ids past the router's limit (${kind})`, () => {
    let storage: Storage;
    let serve: ServeProcess;
    let ctx: AppContext;
    let key: string;

    before(async () => {
      storage = await freshStorage(kind);
      const env = { ...storage.env, TAPPROOF_RATE_LIMIT: '100000' };
      serve = await startServe(env);
      ctx = createContext(storage.open(), loadConfig(env));
      const team = await createTeam(ctx.db.kysely, 'long ids', null, ctx.clock);
      key = (await createKey(ctx.db.kysely, team.id, 'sandbox', ctx.clock)).key;
    });

    after(async () => {
      await serve?.stop();
      await ctx?.db.close();
      await storage?.drop();
    });

    test('at the limit an id is looked up (404 with a key, 401 without); one character over, and far over, it is 404 either way', async () => {
      for (const [length, withKey, withoutKey] of [
        [LIMIT, NOT_FOUND, UNAUTHORIZED],
        [LIMIT + 1, NOT_FOUND, NOT_FOUND],
        [LIMIT + 4000, NOT_FOUND, NOT_FOUND],
      ] as const) {
        const id = 'a'.repeat(length);
        for (const [method, path] of [
          ['GET', `/tags/${id}`],
          ['POST', `/keys/${id}/roll`],
        ] as const) {
          const keyed = await call(serve, method, path, { key });
          assert.equal(keyed.text, withKey, `${length} ${method} ${path.slice(0, 8)} with a key`);
          const keyless = await call(serve, method, path);
          assert.equal(keyless.text, withoutKey, `${length} ${method} ${path.slice(0, 8)} without`);
          // Answered before routing, yet quotable like any other answer.
          assert.match(keyless.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
        }
        const ext = await fetch(`${serve.origin}/ext/verifications/${id}`);
        const body = await ext.text();
        if (length === LIMIT) assert.deepEqual([ext.status, body], [400, '{"error":"Invalid verification ID format"}']);
        else assert.deepEqual([ext.status, body, ext.headers.get('access-control-allow-origin')], [404, '{"error":"Not Found"}', '*']);
      }
    });

    test("an id that makes the request head longer than Node reads (40 kB) is Node's 431, on every route, with or without a key", async () => {
      const id = 'a'.repeat(100_000);
      for (const [method, path, withKey] of [
        ['GET', `/api/v1/tags/${id}`, true],
        ['GET', `/api/v1/tags/${id}`, false],
        ['POST', `/api/v1/keys/${id}/roll`, true],
        ['POST', `/api/v1/keys/${id}/roll`, false],
        ['GET', `/ext/verifications/${id}`, false],
      ] as const) {
        const answer = await fetch(`${serve.origin}${path}`, { method, headers: withKey ? { authorization: `Bearer ${key}` } : {} });
        assert.deepEqual(
          [answer.status, await answer.text()],
          [431, '{"error":"Request Header Fields Too Large","message":"Exceeded maximum allowed HTTP header size","statusCode":431}'],
          `${method} ${path.slice(0, 16)} ${withKey ? 'with' : 'without'} a key`,
        );
      }
    });

    test('none of it is an error or a warning in the log, and no log line carries a long id whole', async () => {
      const lines = serve
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg?: string; req?: { url: string } });
      assert.ok(lines.length > 0, 'the server logs JSON lines');
      assert.deepEqual(
        lines.filter((line) => line.level >= 40).map((line) => line.msg),
        [],
      );
      // Each request is still logged, its url cut to its first LOGGED_URL_MAX characters and its length.
      const longest = Math.max(...lines.map((line) => JSON.stringify(line).length));
      assert.ok(longest < LOGGED_URL_MAX + 1000, `a log line of ${longest} characters`);
      assert.ok(
        lines.some((line) => line.req?.url === `/api/v1/tags/${'a'.repeat(LOGGED_URL_MAX - 13)}… (${LIMIT + 1 + 13} characters)`),
        'the request with an id one past the limit is logged, cut',
      );
    });
  });
}
