// Expiry and roll overlap across two `tapproof serve` processes on one database, both engines: a key
// cached by both servers stops working on both at its expiry, a rolled key works on both until its
// overlap ends, and a roll that ends a key at once (or a revoke) reaches the other server too.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { createKey } from '../../src/keys/service.js';
import { createTeam } from '../../src/teams/service.js';
import { startServe, type ServeProcess } from '../cli/process.js';
import { DATABASES, call, freshStorage, randomIp, type Storage } from '../kit/harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The keys feed's listening connections on the schema, as a revoke counts them (src/db/change-feed.ts). */
const FOLLOWERS = sql<{
  n: number;
}>`select count(*)::int as n from pg_stat_activity where application_name = left('tapproof:tapproof_keys:' || current_schema(), 63)`;

for (const kind of DATABASES) {
  describe(`key expiry and rolls across two servers (${kind})`, () => {
    let storage: Storage;
    let a: ServeProcess;
    let b: ServeProcess;
    let ctx: AppContext;
    let admin: string;

    /** The status `key` gets from `server` (each request its own client address: no shared rate budget). */
    const status = async (server: ServeProcess, key: string, path = '/tags') =>
      (await call(server, 'GET', path, { key, headers: { 'x-forwarded-for': randomIp() } })).status;
    const both = async (key: string) => [await status(a, key), await status(b, key)];

    before(async () => {
      storage = await freshStorage(kind);
      const env = { ...storage.env, TAPPROOF_RATE_LIMIT: '100000', TAPPROOF_TRUST_PROXY: '127.0.0.1' };
      // One after the other: the first migrates and makes the database, the second joins it.
      a = await startServe(env);
      b = await startServe(env);
      ctx = createContext(storage.open(), loadConfig(env));
      const team = await createTeam(ctx.db.kysely, 'two servers', null, ctx.clock);
      admin = (await createKey(ctx.db.kysely, team.id, 'sandbox', ctx.clock)).key;
    });

    after(async () => {
      await Promise.all([a, b].filter(Boolean).map((p) => p.stop()));
      await ctx?.db.close();
      await storage?.drop();
    });

    const make = async (server: ServeProcess, attributes: object) => {
      const made = await call(server, 'POST', '/keys', { key: admin, body: { data: { type: 'keys', attributes } } });
      assert.equal(made.status, 201, made.text);
      return { id: made.body.data.id as string, key: made.body.data.attributes.key as string };
    };

    test('a key cached by both servers is refused by both from its expiry on', async () => {
      // Long enough that a loaded machine still makes its first requests well before it.
      const expiresAt = Date.now() + 6_000;
      const reader = await make(a, { role: 'read', expires_at: new Date(expiresAt).toISOString() });
      assert.deepEqual(await both(reader.key), [200, 200]);
      // Its role holds on the other server too.
      assert.equal(
        (await call(b, 'POST', '/webhooks', { key: reader.key, body: { data: { type: 'webhooks', attributes: { url: 'https://x.example' } } } })).status,
        403,
      );
      await sleep(expiresAt - Date.now() + 50);
      assert.deepEqual(await both(reader.key), [401, 401]);
    });

    test('a roll on one server: the old key works on both through the overlap and on neither after; the new one on both', async () => {
      const old = await make(a, { role: 'write' });
      assert.deepEqual(await both(old.key), [200, 200]);
      const rolled = await call(b, 'POST', `/keys/${old.id}/roll`, { key: admin, body: { data: { type: 'keys', attributes: { expires_in: 5 } } } });
      assert.equal(rolled.status, 201, rolled.text);
      const fresh = rolled.body.data.attributes.key as string;
      assert.deepEqual(await both(old.key), [200, 200]);
      assert.deepEqual(await both(fresh), [200, 200]);
      // Exactly 5 s after the roll, as the server timed it.
      const ends = Date.parse((await call(a, 'GET', `/keys/${old.id}`, { key: admin })).body.data.attributes.expires_at);
      assert.equal(ends - Date.parse(rolled.body.data.attributes.created_at), 5_000);
      await sleep(ends - Date.now() + 50);
      assert.deepEqual(await both(old.key), [401, 401]);
      assert.deepEqual(await both(fresh), [200, 200]);

      // Without an overlap the other server refuses the old key from the request after the roll's answer.
      const again = await call(a, 'POST', `/keys/${rolled.body.data.id}/roll`, { key: admin });
      assert.equal(again.status, 201, again.text);
      assert.equal(await status(b, fresh), 401, 'the other server still accepts a key rolled without overlap');
      assert.deepEqual(await both(again.body.data.attributes.key), [200, 200]);
    });

    // PostgreSQL: the change answers once every listening server has acknowledged dropping the key (docs/keys.md),
    // so the other server refuses it on the very next request, every time. SQLite: the change answers once this
    // server's own watcher saw the revocations file change; the other acts on the same kernel event as soon as its
    // event loop gets to it, normally by the next request (counted), always within the 2 s bound (asserted).
    test('a revoke, or a roll without overlap, on one server: the other refuses the key (50 trials each)', async (t) => {
      let later = 0;
      for (let trial = 0; trial < 50; trial++) {
        for (const how of ['revoke', 'roll'] as const) {
          const key = await make(a, { role: 'read' });
          // Cached by the other server first: the change must reach its cache, not a miss.
          assert.equal(await status(b, key.key), 200);
          const changed =
            how === 'revoke'
              ? await call(a, 'DELETE', `/keys/${key.id}`, { key: admin })
              : await call(a, 'POST', `/keys/${key.id}/roll`, { key: admin, body: { data: { type: 'keys', attributes: { expires_in: 0 } } } });
          assert.equal(changed.status, how === 'revoke' ? 204 : 201, changed.text);
          let seen = await status(b, key.key);
          if (kind === 'postgres') assert.equal(seen, 401, `${how} ${trial}: the other server accepted the key on the next request`);
          if (seen !== 401) later++;
          for (const started = Date.now(); seen !== 401 && Date.now() - started < 2_000; await sleep(5)) seen = await status(b, key.key);
          assert.equal(seen, 401, `${how} ${trial}: the other server still accepts the key`);
        }
      }
      t.diagnostic(`${later} of 100 changes needed a second request on the other server`);
    });

    if (kind === 'postgres')
      test("a listening server that never acknowledges holds a revoke's answer 2 s at most, and the key is revoked", async () => {
        // Named as a server names its feed connection, but never saying it acted.
        const mute = new pg.Client({ connectionString: storage.target.kind === 'postgres' ? storage.target.url : '' });
        await mute.connect();
        try {
          await mute.query('listen tapproof_keys');
          await mute.query(`select set_config('application_name', left('tapproof:tapproof_keys:' || current_schema(), 63), false)`);
          const key = await make(a, { role: 'read' });
          assert.equal(await status(b, key.key), 200);
          const started = Date.now();
          const revoked = await call(a, 'DELETE', `/keys/${key.id}`, { key: admin });
          const took = Date.now() - started;
          assert.equal(revoked.status, 204);
          assert.ok(took >= 1_900 && took < 5_000, `answered after ${took} ms`);
          assert.deepEqual(await both(key.key), [401, 401]);
        } finally {
          await mute.end();
        }
        // Gone (its backend ends a moment after the client), it is no longer waited for.
        const followers = async () => (await FOLLOWERS.execute(ctx.db.kysely)).rows[0]!.n;
        for (const started = Date.now(); (await followers()) > 2 && Date.now() - started < 2_000;) await sleep(10);
        assert.equal(await followers(), 2);
        const key = await make(a, { role: 'read' });
        const started = Date.now();
        assert.equal((await call(a, 'DELETE', `/keys/${key.id}`, { key: admin })).status, 204);
        assert.ok(Date.now() - started < 1_900, `answered after ${Date.now() - started} ms`);
      });
  });
}
