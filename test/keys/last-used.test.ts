// GET /keys shows when each key was last used: kept to the minute per process, written after the
// request in the background (src/keys/last-use.ts); `ctx.keyUses.flush()` stands in for the wait.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createKey } from '../../src/keys/service.js';
import { parseIsoMicros } from '../../src/http/query.js';
import { isoMicros } from '../../src/time.js';
import { DATABASES, call, sharedServer } from '../kit/harness.js';

for (const kind of DATABASES) {
  describe(`keys' last use (${kind})`, () => {
    const suite = sharedServer(kind);
    const keysOf = async (key: string) => {
      const response = await call(suite.server, 'GET', '/keys', { key });
      assert.equal(response.status, 200, response.text);
      return Object.fromEntries(response.body.data.map((k: any) => [k.id, k.attributes.last_used_at]));
    };
    /** A request with `key` at the server's now, its use written; returns that now. */
    async function use(key: string): Promise<number> {
      const before = suite.server.clock.nowMicros();
      assert.equal((await call(suite.server, 'GET', '/teams/current', { key })).status, 200);
      await suite.server.ctx.keyUses.flush();
      return before;
    }

    test('a used key shows when it was used; a key never used shows null', async () => {
      const { server } = suite;
      const world = await server.seedTeam();
      const unused = await createKey(server.ctx.db.kysely, world.teamId, 'sandbox', server.clock);
      const before = await use(world.sandbox.key);
      const after = server.clock.nowMicros();
      const shown = await keysOf(world.sandbox.key);
      assert.deepEqual(Object.keys(shown), [world.sandbox.id, unused.id]);
      assert.equal(shown[unused.id], null);
      const usedAt = parseIsoMicros(shown[world.sandbox.id])!;
      assert.ok(before <= usedAt && usedAt <= after, `${shown[world.sandbox.id]} between ${isoMicros(before)} and ${isoMicros(after)}`);
      const one = await call(server, 'GET', `/keys/${world.sandbox.id}`, { key: world.sandbox.key });
      assert.equal(one.body.data.attributes.last_used_at, shown[world.sandbox.id]);
    });

    test('a use is written at most once a minute: a second use 30 s later keeps the first time, one after a minute moves it', async () => {
      const { server } = suite;
      const world = await server.seedTeam();
      const since = await use(world.sandbox.key);
      const first = (await keysOf(world.sandbox.key))[world.sandbox.id];
      const firstAt = parseIsoMicros(first)!;
      assert.ok(since <= firstAt && firstAt <= server.clock.nowMicros(), `${first} after ${isoMicros(since)}`);
      server.clock.advance(30_000);
      await use(world.sandbox.key);
      assert.equal((await keysOf(world.sandbox.key))[world.sandbox.id], first);
      server.clock.advance(31_000);
      const later = await use(world.sandbox.key);
      const moved = (await keysOf(world.sandbox.key))[world.sandbox.id];
      assert.ok(parseIsoMicros(moved)! >= later && parseIsoMicros(first)! < later - 60_000_000, `${moved} after ${first}`);
    });
  });
}
