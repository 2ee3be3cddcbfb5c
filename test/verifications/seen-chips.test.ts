// PostgreSQL writes a batch of fresh scans in one statement, decided on the chips as
// this process last committed them (SeenChips, src/verifications/scan-commit.ts); the
// statement's guard writes nothing when a chip has changed since, and the batch is
// decided again under the row locks. Here the chips change behind one server's back:
// another host on the same database scans them, or a PATCH changes session_duration.
// The answers and the stored rows must be those of a server that read every chip
// fresh, on both engines; on PostgreSQL the metric shows which path each batch took.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { createContext, type AppContext } from '../../src/context.js';
import { newId } from '../../src/ids.js';
import { lockChips } from '../../src/tag-chips/repository.js';
import { writeOutcomes, isStaleChips, type VerificationRow } from '../../src/verifications/repository.js';
import { CommittedChips } from '../../src/verifications/scan-commit.js';
import { call, DATABASES, startServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { emulated, tapUrl, verify } from './helpers.js';

/** A second app ("another host") with its own connections, group commit and seen chips, on the server's database. */
async function anotherHost(server: TestServer): Promise<{ base: string; ctx: AppContext; close(): Promise<void> }> {
  const ctx = createContext(server.storage.open(), server.ctx.config, server.ctx.clock);
  const app = await buildApp(ctx, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  return {
    base: origin + ctx.config.apiPrefix,
    ctx,
    async close() {
      await app.close();
      await ctx.db.close();
    },
  };
}

/** This server's PostgreSQL batches so far, by path. */
async function batches(ctx: AppContext): Promise<{ as_seen: number; locked: number }> {
  const { values } = await ctx.metrics.scanBatches.get();
  const count = (path: string) => values.find((v) => v.labels.path === path)?.value ?? 0;
  return { as_seen: count('as_seen'), locked: count('locked') };
}

/** The batches by path since `before` was read. */
async function batchesSince(ctx: AppContext, before: { as_seen: number; locked: number }): Promise<{ as_seen: number; locked: number }> {
  const now = await batches(ctx);
  return { as_seen: now.as_seen - before.as_seen, locked: now.locked - before.locked };
}

for (const kind of DATABASES) {
  describe(`chips changed behind a server's back (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    let other: Awaited<ReturnType<typeof anotherHost>>;

    before(async () => {
      server = await startServer(kind);
      world = await server.seedTeam();
      other = await anotherHost(server);
    });
    after(async () => {
      await other.close();
      await server.close();
    });

    const rowsOf = (tagId: string) =>
      server.ctx.db.kysely.selectFrom('verifications').select(['reason', 'read_counter']).where('tag_id', '=', tagId).orderBy('scanned_at').execute();
    const sessionsOf = (tagId: string) => server.ctx.db.kysely.selectFrom('sessions').select(['id']).where('tag_id', '=', tagId).execute();

    test('another host accepted a higher counter: an older fresh-looking URL here is a replay, and nothing of the first attempt is stored', async () => {
      const tag = await emulated(server, world.teamId, 'ntag_424_dna');
      const first = await verify(server, world.sandbox.key, await tapUrl(server, tag.id));
      assert.equal(first.body.data.attributes.reason, 'ok');
      const older = await tapUrl(server, tag.id);
      const newer = await tapUrl(server, tag.id);
      const there = await verify(other, world.sandbox.key, newer);
      assert.equal(there.body.data.attributes.reason, 'ok');
      const before = await batches(server.ctx);

      const here = await verify(server, world.sandbox.key, older);
      assert.equal(here.status, 201);
      assert.equal(here.body.data.attributes.genuine, false);
      assert.equal(here.body.data.attributes.reason, 'replayed');
      const counter = (r: typeof first) => r.body.data.attributes.read_counter as number;
      assert.deepEqual(await rowsOf(tag.id), [
        { reason: 'ok', read_counter: counter(first) },
        { reason: 'ok', read_counter: counter(there) },
        { reason: 'replayed', read_counter: counter(there) - 1 },
      ]);
      const chip = await server.ctx.db.kysely.selectFrom('chips').select(['last_counter', 'session_id']).where('tag_id', '=', tag.id).executeTakeFirstOrThrow();
      assert.equal(chip.last_counter, counter(there));
      // The first scan opened a session and the other host's completed it; the refused attempt opened none.
      assert.equal((await sessionsOf(tag.id)).length, 1);
      assert.equal(there.body.data.attributes.session_id, first.body.data.attributes.session_id);
      assert.equal(chip.session_id, null);
      if (kind === 'postgres') {
        // One statement tried on the chip as this server last saw it, refused by its guard, then the locked path.
        assert.deepEqual(await batchesSince(server.ctx, before), { as_seen: 0, locked: 1 });
      }
      // This server now knows the chip as stored: the next tap is genuine.
      const next = await verify(server, world.sandbox.key, await tapUrl(server, tag.id));
      assert.equal(next.body.data.attributes.reason, 'ok');
      assert.equal(next.body.data.attributes.read_counter, counter(there) + 1);
    });

    test('a PATCH of session_duration after the chip was seen: the next session opened here has the new duration', async () => {
      const tag = await emulated(server, world.teamId, 'ntag_424_dna', { sessionDuration: 60 });
      for (let i = 0; i < 2; i++) assert.equal((await verify(server, world.sandbox.key, await tapUrl(server, tag.id))).body.data.attributes.reason, 'ok');
      const patched = await call(server, 'PATCH', `/tags/${tag.id}`, {
        key: world.sandbox.key,
        body: { data: { type: 'tags', id: tag.id, attributes: { session_duration: 7 } } },
      });
      assert.equal(patched.status, 200);
      const before = await batches(server.ctx);
      const opened = await verify(server, world.sandbox.key, await tapUrl(server, tag.id));
      const session = await server.ctx.db.kysely
        .selectFrom('sessions')
        .selectAll()
        .where('id', '=', opened.body.data.attributes.session_id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(session.expires_at) - Number(session.opened_at), 7_000_000);
      assert.equal((await sessionsOf(tag.id)).length, 2);
      if (kind === 'postgres') {
        assert.deepEqual(await batchesSince(server.ctx, before), { as_seen: 0, locked: 1 });
      }
    });

    if (kind === 'postgres') {
      test('consecutive scans of a chip this server committed are written in one statement each; a new chip is locked first', async () => {
        const tag = await emulated(server, world.teamId, 'ntag_424_dna');
        const before = await batches(server.ctx);
        for (let i = 0; i < 4; i++) assert.equal((await verify(server, world.sandbox.key, await tapUrl(server, tag.id))).body.data.attributes.reason, 'ok');
        assert.deepEqual(await batchesSince(server.ctx, before), { as_seen: 3, locked: 1 });
        assert.deepEqual(
          (await rowsOf(tag.id)).map((r) => r.reason),
          ['ok', 'ok', 'ok', 'ok'],
        );
      });

      test('the outcome statement writes nothing at all when one of its chips is not as the batch read it (SQLSTATE TP001)', async () => {
        const [a, b] = [await emulated(server, world.teamId, 'ntag_424_dna'), await emulated(server, world.teamId, 'ntag_424_dna')];
        for (const tag of [a, b]) await verify(server, world.sandbox.key, await tapUrl(server, tag.id));
        const db = server.ctx.db.kysely;
        // The chips as the group commit reads them (the same columns, outside any transaction here).
        const read = async (tagId: string) => (await lockChips(db, [tagId]))[0]!;
        const [chipA, chipB] = [await read(a.id), await read(b.id)];
        const row = (tagId: string, counter: number): VerificationRow => ({
          id: newId('vrf'),
          team_id: world.teamId,
          mode: 'sandbox',
          tag_id: tagId,
          scanned_at: 1,
          url_hash: 'h',
          client_ip: null,
          country: null,
          write_generation: 1,
          genuine: 1,
          reason: 'ok',
          read_counter: counter,
          tamper_permanent: null,
          tamper_current: null,
          session_id: null,
          signals: null,
        });
        const snapshot = async () => ({
          chips: [await read(a.id), await read(b.id)],
          verifications: await db.selectFrom('verifications').select('id').where('tag_id', 'in', [a.id, b.id]).execute(),
          sessions: await db.selectFrom('sessions').select('id').where('tag_id', 'in', [a.id, b.id]).execute(),
        });
        const was = await snapshot();
        // A is as read; B's counter is not (another host moved it): neither may move, no row may appear.
        const advances = [
          { before: chipA, after: { ...chipA, last_counter: chipA.last_counter! + 5, session_id: null, session_expires_at: null } },
          {
            before: { ...chipB, last_counter: chipB.last_counter! - 1 },
            after: { ...chipB, last_counter: chipB.last_counter! + 5, session_id: null, session_expires_at: null },
          },
        ];
        const opened = [{ id: newId('ses'), team_id: world.teamId, mode: 'sandbox' as const, tag_id: a.id, opened_at: 1, expires_at: 2 }];
        await assert.rejects(writeOutcomes(db, advances, opened, [row(a.id, chipA.last_counter! + 5), row(b.id, chipB.last_counter! + 5)]), (error) => {
          assert.equal(isStaleChips(error), true);
          assert.match(String((error as Error).message), /chips changed since this batch read them \(1 of 2 as seen\)/);
          return true;
        });
        assert.deepEqual(await snapshot(), was);
        // The same statement with both chips as read writes everything.
        advances[1]!.before = chipB;
        await writeOutcomes(db, advances, opened, [row(a.id, chipA.last_counter! + 5), row(b.id, chipB.last_counter! + 5)]);
        const now = await snapshot();
        assert.deepEqual(
          now.chips.map((c) => c.last_counter),
          [chipA.last_counter! + 5, chipB.last_counter! + 5],
        );
        assert.equal(now.verifications.length, was.verifications.length + 2);
        assert.equal(now.sessions.length, was.sessions.length + 1);
      });
    }

    if (kind === 'sqlite') {
      test("the commit thread's known chips: a committed batch's are used as decided, a rolled-back batch's never, and another connection's commit drops them all", async () => {
        const tag = await emulated(server, world.teamId, 'ntag_424_dna');
        await verify(server, world.sandbox.key, await tapUrl(server, tag.id));
        const db = server.ctx.db.kysely;
        const stored = (await lockChips(db, [tag.id]))[0]!;
        const known = new CommittedChips();
        // A batch decides (here: a made-up counter nothing writes, to tell memory from the row) and commits.
        const batch = (counter: number) =>
          db.transaction().execute(async (trx) => {
            const chips = await known.read(trx, [tag.id]);
            const seen = chips.get(tag.id)!.last_counter;
            chips.get(tag.id)!.last_counter = counter;
            known.record(chips.values());
            return seen;
          });
        assert.equal(await batch(1_000), stored.last_counter);
        known.committed();
        assert.equal(await batch(2_000), 1_000);
        known.committed();
        // Rolled back after it decided: what it decided is never known.
        await assert.rejects(
          db.transaction().execute(async (trx) => {
            known.record([{ ...(await known.read(trx, [tag.id])).get(tag.id)!, last_counter: 3_000 }]);
            throw new Error('rolled back');
          }),
          /rolled back/,
        );
        assert.equal(await batch(4_000), 2_000);
        // Another connection commits anything at all: every chip is read again.
        const another = server.storage.open();
        try {
          await another.kysely.updateTable('tags').set({ comment: 'another connection' }).where('id', '=', tag.id).execute();
        } finally {
          await another.close();
        }
        assert.equal(await batch(5_000), stored.last_counter);
      });
    }
  });
}
