// Several server processes on one database (docs/throughput.md#arrival-order): `tapproof serve
// --processes 2` (two workers sharing a port) and a second, separate `serve`
// (another host) on the same SQLite file or PostgreSQL schema. Scans spread
// over all three processes: exactly one genuine verification per fresh
// counter, every simultaneous copy of a URL answered with it, sessions paired
// in tap order, verification.flagged coalesced per tag and signal, and a clean shutdown.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { AppContext } from '../../src/context.js';
import { createEmulatedChip, tap } from '../../src/emulator/service.js';
import { runCli, type ServeProcess } from '../cli/process.js';
import { DATABASES, call, type Storage } from '../kit/harness.js';
import { flipHexDigit, seededStorage, startServeOn, verify as verifyWith } from './helpers.js';
import { FLAG_WINDOW_SECONDS, announceHeldScans } from '../../src/verifications/flagged-events.js';
import { cliActor } from '../../src/audit/record.js';

type Running = ServeProcess;
const stopServe = (server: Running) => server.stop();

/** The processes under `pid` (cluster workers). */
function children(pid: number): number[] {
  const out: number[] = [];
  for (const task of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) out.push(Number(task));
  return out;
}

test('serve --processes takes a whole number from 1 to 64 (else exit 1 naming the option)', async () => {
  for (const bad of ['0', '65', 'two', '1.5', '-1']) {
    const { code, stderr } = await runCli({ LOG_LEVEL: 'silent' }, 'serve', '--processes', bad);
    assert.equal(code, 1, bad);
    assert.match(stderr, /--processes <n>.*must be a whole number from 1 to 64/, bad);
  }
});

for (const kind of DATABASES) {
  describe(`several server processes on one database (${kind})`, () => {
    let storage: Storage;
    let ctx: AppContext;
    let key: string;
    let teamId: string;
    let cluster: Running;
    let other: Running;
    /** Round-robin over the three processes' ports: A's two workers take turns per connection, B is another host. */
    let servers: Running[];

    before(async () => {
      ({ storage, ctx, teamId, key } = await seededStorage(kind, 'processes'));
      [cluster, other] = await Promise.all([startServeOn(storage, ['--processes', '2']), startServeOn(storage, [])]);
      servers = [cluster, other];
    });

    after(async () => {
      const codes = await Promise.all([cluster, other].filter(Boolean).map(stopServe));
      await ctx.db.close();
      await storage.drop();
      assert.deepEqual(codes, [0, 0]);
    });

    const verify = (server: Running, url: string) => verifyWith(server, key, url);
    const newTag = async () =>
      (
        await createEmulatedChip(ctx, {
          teamId,
          url: `https://example.com/m/${Math.random().toString(36).slice(2)}`,
          protocol: 'ntag_424_dna',
          actor: cliActor(),
        })
      ).id;

    test('serve --processes 2 runs two server processes', () => {
      const workers = children(cluster.child.pid!).filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('serve');
        } catch {
          return false;
        }
      });
      assert.equal(workers.length, 2);
    });

    test('the same fresh URL sent 24 times at once across the processes: one genuine verification, every answer is it', async () => {
      const tags = await Promise.all(Array.from({ length: 6 }, newTag));
      for (const tagId of tags) {
        const { url } = await tap(ctx, tagId);
        const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => verify(servers[i % 2]!, url)));
        assert.deepEqual([...new Set(answers.map((a) => a.status))], [201]);
        assert.equal(new Set(answers.map((a) => a.body.data.id)).size, 1);
        assert.equal(answers[0]!.body.data.attributes.reason, 'ok');
        const rows = await ctx.db.kysely.selectFrom('verifications').select(['reason', 'read_counter']).where('tag_id', '=', tagId).execute();
        assert.deepEqual(rows, [{ reason: 'ok', read_counter: 1 }]);
      }
    });

    test('in-order taps of many chips, each tap to another process: all genuine, sessions paired in order', async () => {
      const tags = await Promise.all(Array.from({ length: 12 }, newTag));
      const TAPS = 6;
      await Promise.all(
        tags.map(async (tagId, t) => {
          for (let n = 0; n < TAPS; n++) {
            const { url } = await tap(ctx, tagId);
            const answer = await verify(servers[(t + n) % 2]!, url);
            assert.equal(answer.status, 201);
            assert.equal(answer.body.data.attributes.reason, 'ok', `tag ${t} tap ${n + 1}`);
          }
        }),
      );
      for (const tagId of tags) {
        const rows = await ctx.db.kysely
          .selectFrom('verifications')
          .select(['reason', 'read_counter', 'session_id'])
          .where('tag_id', '=', tagId)
          .orderBy('read_counter')
          .execute();
        assert.deepEqual(
          rows.map((r) => [r.reason, r.read_counter]),
          Array.from({ length: TAPS }, (_, i) => ['ok', i + 1]),
        );
        for (let i = 0; i < TAPS; i += 2) assert.equal(rows[i]!.session_id, rows[i + 1]!.session_id);
        assert.equal(new Set(rows.map((r) => r.session_id)).size, TAPS / 2);
        const sessions = await ctx.db.kysely.selectFrom('sessions').select('id').where('tag_id', '=', tagId).execute();
        assert.equal(sessions.length, TAPS / 2);
        const chip = await ctx.db.kysely.selectFrom('chips').select(['last_counter', 'session_id']).where('tag_id', '=', tagId).executeTakeFirstOrThrow();
        assert.deepEqual(chip, { last_counter: TAPS, session_id: null });
      }
    });

    test('ten different URLs of one tag at once across the processes: never two genuine with one counter, the highest accepted last', async () => {
      const tagId = await newTag();
      const urls: string[] = [];
      for (let i = 0; i < 10; i++) urls.push((await tap(ctx, tagId)).url);
      const answers = await Promise.all(urls.map((url, i) => verify(servers[i % 2]!, url)));
      assert.deepEqual([...new Set(answers.map((a) => a.status))], [201]);
      const genuine = answers.filter((a) => a.body.data.attributes.genuine).map((a) => a.body.data.attributes.read_counter as number);
      // The highest counter cannot be a replay of anything, whatever order the rest arrived in.
      assert.equal(answers[9]!.body.data.attributes.reason, 'ok', answers[9]!.text);
      assert.equal(new Set(genuine).size, genuine.length);
      assert.ok(answers.every((a) => a.body.data.attributes.genuine || a.body.data.attributes.reason === 'replayed'));
      const rows = await ctx.db.kysely.selectFrom('verifications').select(['reason', 'read_counter']).where('tag_id', '=', tagId).execute();
      assert.equal(rows.length, 10);
      assert.deepEqual(
        rows
          .filter((r) => r.reason === 'ok')
          .map((r) => r.read_counter)
          .sort((a, b) => a! - b!),
        [...genuine].sort((a, b) => a - b),
      );
      const chip = await ctx.db.kysely.selectFrom('chips').select('last_counter').where('tag_id', '=', tagId).executeTakeFirstOrThrow();
      assert.equal(chip.last_counter, Math.max(...genuine));
    });

    test('a burst of refused scans split across the processes is counted in one order: replay_burst from the third on', async () => {
      const tagId = await newTag();
      const [older, newer] = [(await tap(ctx, tagId)).url, (await tap(ctx, tagId)).url];
      assert.equal((await verify(servers[0]!, newer)).body.data.attributes.reason, 'ok');
      // One at a time, each to the other process.
      const one = [];
      for (let i = 0; i < 3; i++) one.push((await verify(servers[i % 2]!, older)).body.data.attributes);
      assert.deepEqual(
        one.map((v) => [v.reason, v.signals]),
        [
          ['replayed', []],
          ['replayed', []],
          ['replayed', ['replay_burst']],
        ],
      );
      // Eight at once on another tag: the two decided first are quiet, the other six are the burst.
      const other = await newTag();
      const [stale, fresh] = [(await tap(ctx, other)).url, (await tap(ctx, other)).url];
      await verify(servers[1]!, fresh);
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => verify(servers[i % 2]!, stale)));
      const signals = answers.map((a) => JSON.stringify(a.body.data.attributes.signals)).sort();
      assert.deepEqual(signals, [...Array.from({ length: 6 }, () => '["replay_burst"]'), '[]', '[]']);
    });

    test('verification.flagged across the processes: 100 copies of a forged URL at once are one event at once and one summary; other tags and signals are their own', async () => {
      const [a, b] = [await newTag(), await newTag()];
      // A genuine scan of each first: a later counter gap has one to be measured from.
      for (const tagId of [a, b]) assert.equal((await verify(servers[0]!, (await tap(ctx, tagId)).url)).body.data.attributes.reason, 'ok');
      const forged = async (tagId: string) => flipHexDigit((await tap(ctx, tagId)).url);
      const atOnce = async (url: string, n: number) =>
        (await Promise.all(Array.from({ length: n }, (_, i) => verify(servers[i % 2]!, url)))).map((r) => r.body.data.attributes.signals as string[]);
      const burstsOn = (signals: string[][]) => signals.filter((s) => s.join() === 'replay_burst').length;
      const [onA, onB] = await Promise.all([atOnce(await forged(a), 100), atOnce(await forged(b), 5)]);
      // Refused every time, a burst from the third on (docs/signals.md).
      assert.deepEqual([burstsOn(onA), burstsOn(onB)], [98, 3]);
      // Another signal of tag a in the same window: counter_gap (six unverified reads since its genuine scan).
      for (let i = 0; i < 5; i++) await tap(ctx, a);
      const gap = await verify(servers[1]!, (await tap(ctx, a)).url);
      assert.deepEqual(gap.body.data.attributes.signals, ['counter_gap']);

      const events = async () =>
        (
          await ctx.db.kysely
            .selectFrom('events')
            .select('payload')
            .where('type', '=', 'verification.flagged')
            .where('tag_id', 'in', [a, b])
            .orderBy('seq')
            .execute()
        ).map((row) => JSON.parse(row.payload) as { tag: { id: string }; signals: string[]; scans: Record<string, number> });
      const shown = async () => (await events()).map((e) => [e.tag.id === a ? 'a' : 'b', e.signals.join(), e.scans]);
      const sorted = async () => (await shown()).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
      // At once, whichever process took them: one event per tag and signal, each standing for itself.
      assert.deepEqual(await sorted(), [
        ['a', 'counter_gap', { counter_gap: 1 }],
        ['a', 'replay_burst', { replay_burst: 1 }],
        ['b', 'replay_burst', { replay_burst: 1 }],
      ]);
      // The windows end (60 s on): one summary per tag and signal with scans held back, once.
      const later = { db: ctx.db, clock: { nowMicros: () => ctx.clock.nowMicros() + (FLAG_WINDOW_SECONDS + 1) * 1_000_000 } };
      await announceHeldScans(later);
      await announceHeldScans(later);
      const all = await shown();
      assert.deepEqual(
        all.slice(3).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
        [
          ['a', 'replay_burst', { replay_burst: 97 }],
          ['b', 'replay_burst', { replay_burst: 2 }],
        ],
      );
    });

    test('signal thresholds PATCHed through one process are used by the others (within 5 seconds)', async () => {
      const tagId = await newTag();
      const [older, newer] = [(await tap(ctx, tagId)).url, (await tap(ctx, tagId)).url];
      await verify(servers[0]!, newer);
      // Both processes have read the defaults: a first refusal is quiet everywhere.
      for (const server of servers) assert.deepEqual((await verify(server, older)).body.data.attributes.signals, []);
      const patched = await call(servers[1]!, 'PATCH', '/teams/current', {
        key,
        body: { data: { type: 'teams', attributes: { signal_thresholds: { replay_burst: 100 } } } },
      });
      assert.equal(patched.status, 200, patched.text);
      // The third refusal would be a burst under the defaults; under 100 it is not, once the cluster has read it.
      // Every worker of the cluster: three quiet answers in a row.
      const deadline = Date.now() + 15_000;
      let quiet = 0;
      while (quiet < 3 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const { signals } = (await verify(servers[0]!, older)).body.data.attributes;
        quiet = signals.length === 0 ? quiet + 1 : 0;
      }
      assert.equal(quiet, 3);
      await call(servers[1]!, 'PATCH', '/teams/current', { key, body: { data: { type: 'teams', attributes: { signal_thresholds: { replay_burst: 3 } } } } });
    });
  });
}
