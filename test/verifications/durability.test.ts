// Every verification is durable before it is answered (docs/throughput.md#durability). On SQLite the commit thread
// commits without waiting for the disk and answers a batch only after an fsync of the WAL that began
// after its commit (src/db/wal-flush.ts); on PostgreSQL the commit waits for its WAL flush. Killing
// the server with SIGKILL right after the last answer must lose none of them: a restarted server
// knows every answered verification, every counter and every session.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppContext } from '../../src/context.js';
import { createEmulatedChip, tap } from '../../src/emulator/service.js';
import type { ServeProcess } from '../cli/process.js';
import { DATABASES, type Storage } from '../kit/harness.js';
import { seededStorage, startServeOn, verify as verifyWith } from './helpers.js';
import { cliActor } from '../../src/audit/record.js';

for (const kind of DATABASES) {
  describe(`answered verifications survive SIGKILL (${kind})`, () => {
    let storage: Storage;
    let ctx: AppContext;
    let key: string;
    let teamId: string;

    before(async () => {
      ({ storage, ctx, teamId, key } = await seededStorage(kind, 'durability'));
    });
    after(async () => {
      await ctx.db.close();
      await storage.drop();
    });

    const verify = (server: ServeProcess, url: string) => verifyWith(server, key, url);

    test('40 chips tapped 3 times each, all at once; SIGKILL after the last answer; a new server knows all 120', async () => {
      const tags = await Promise.all(
        Array.from(
          { length: 40 },
          async (_, i) => (await createEmulatedChip(ctx, { teamId, url: `https://example.com/d/${i}`, protocol: 'ntag_424_dna', actor: cliActor() })).id,
        ),
      );
      const urls = await Promise.all(tags.map(async (tagId) => [(await tap(ctx, tagId)).url, (await tap(ctx, tagId)).url, (await tap(ctx, tagId)).url]));
      const server = await startServeOn(storage);
      // Each chip's taps in counter order, the chips concurrently: batches of many scans, several commits.
      const answers = await Promise.all(
        urls.map(async (taps) => {
          const out = [];
          for (const url of taps) out.push(await verify(server, url));
          return out;
        }),
      );
      assert.equal(await server.stop('SIGKILL'), null);
      const answered = answers.flat();
      assert.deepEqual([...new Set(answered.map((a) => a.status))], [201]);
      assert.deepEqual([...new Set(answered.map((a) => a.body.data.attributes.reason))], ['ok']);

      const stored = await ctx.db.kysely
        .selectFrom('verifications')
        .select(['id', 'reason', 'read_counter', 'session_id'])
        .where('team_id', '=', teamId)
        .execute();
      assert.equal(stored.length, 120);
      const byId = new Map(stored.map((r) => [r.id, r]));
      for (const a of answered) {
        const row = byId.get(a.body.data.id);
        assert.ok(row, `answered ${a.body.data.id} is stored`);
        assert.deepEqual([row.reason, row.read_counter, row.session_id], ['ok', a.body.data.attributes.read_counter, a.body.data.attributes.session_id]);
      }
      const chips = await ctx.db.kysely.selectFrom('chips').select('last_counter').where('tag_id', 'in', tags).execute();
      assert.deepEqual([...new Set(chips.map((c) => c.last_counter))], [3]);
      assert.equal((await ctx.db.kysely.selectFrom('sessions').select('id').where('tag_id', 'in', tags).execute()).length, 80);

      // The restarted server goes on from there: the newest tap sent again within its session is a reload of
      // its answer, an older one a replay; the chip's next tap is genuine at counter 4 and completes the session
      // its third tap opened.
      const restarted = await startServeOn(storage);
      try {
        const reload = await verify(restarted, urls[0]![2]!);
        assert.equal(reload.status, 201);
        assert.equal(reload.body.data.id, answers[0]![2]!.body.data.id);
        assert.deepEqual(reload.body.meta, { repeat: true });
        const older = await verify(restarted, urls[0]![0]!);
        assert.equal(older.status, 201);
        assert.deepEqual([older.body.data.attributes.reason, older.body.data.attributes.read_counter], ['replayed', 1]);
        const next = await verify(restarted, (await tap(ctx, tags[0]!)).url);
        assert.equal(next.status, 201);
        assert.deepEqual([next.body.data.attributes.reason, next.body.data.attributes.read_counter], ['ok', 4]);
        assert.equal(next.body.data.attributes.session_id, answers[0]![2]!.body.data.attributes.session_id);
      } finally {
        assert.equal(await restarted.stop(), 0);
      }
    });
  });
}
