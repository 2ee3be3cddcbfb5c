// A path id longer than the router reads (16,384 characters) names no resource: 404 on the platform API and
// the extension API alike, with or without a key, and no error in the log. Against `tapproof serve`, whose log
// is the operator's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { createKey } from '../../src/keys/service.js';
import { createTeam } from '../../src/teams/service.js';
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
        }
        const ext = await fetch(`${serve.origin}/ext/verifications/${id}`);
        const body = await ext.text();
        if (length === LIMIT) assert.deepEqual([ext.status, body], [400, '{"error":"Invalid verification ID format"}']);
        else assert.deepEqual([ext.status, body], [404, '{"error":"Not Found"}']);
      }
    });

    test('none of it is an error or a warning in the log', async () => {
      const lines = serve
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg?: string });
      assert.ok(lines.length > 0, 'the server logs JSON lines');
      assert.deepEqual(
        lines.filter((line) => line.level >= 40).map((line) => line.msg),
        [],
      );
    });
  });
}
