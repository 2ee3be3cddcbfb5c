// Scan retention on both engines: `tapproof prune` (and the job behind TAPPROOF_SCAN_RETENTION_DAYS)
// deletes scans older than the window in batches, never one a claim refers to, never what replay
// protection needs (an old tap is still refused afterwards), and GET /verifications/stats answers the
// same; ended sessions no kept scan or chip names go with them; a dry run says what would go and
// deletes nothing; bad arguments are refused.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { pruneScans } from '../../src/verifications/retention.js';
import { runCli } from '../cli/process.js';
import { startServe } from '../cli/process.js';
import { DATABASES, call, sharedServer, type TestServer } from '../kit/harness.js';
import { parseMetrics } from '../metrics/exposition.js';
import { ext, genuineScan, scan, scannableTag } from '../extension/helpers.js';
import { cliActor } from '../../src/audit/record.js';

const DAY_MS = 86_400_000;

const countOf = async (server: TestServer, table: 'verifications' | 'sessions', teamId: string) =>
  Number(
    (
      await server.ctx.db.kysely
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('team_id', '=', teamId)
        .executeTakeFirstOrThrow()
    ).n,
  );

for (const kind of DATABASES) {
  describe(`scan retention (${kind})`, () => {
    const suite = sharedServer(kind);

    test('old scans go in batches; a claimed one stays, replays stay refused, stats and the chip’s session are unchanged', async () => {
      const { server } = suite;
      const world = await server.seedTeam({ name: 'retention' });
      const tag = await scannableTag(server, world, 'sandbox');
      const oldUrls: string[] = [];
      for (let i = 0; i < 7; i++) {
        const url = await tag.nextUrl();
        oldUrls.push(url);
        assert.equal((await scan(server, world, 'sandbox', url)).genuine, true);
        // Each scan in a session of its own (the default session is 5 minutes).
        server.clock.advance(10 * 60_000);
      }
      const claimed = await genuineScan(server, world, 'sandbox');
      const claim = await ext(server, 'POST', '/sandbox/claims', {
        body: { resource_url: `https://landing.example/${randomBytes(4).toString('hex')}`, verification_id: claimed.publicId },
      });
      assert.equal(claim.status, 201, claim.text);
      server.clock.advance(40 * DAY_MS);
      const recent = await scan(server, world, 'sandbox', await tag.nextUrl());
      assert.equal(recent.genuine, true);
      const day = (ms: number) => new Date(server.clock.nowMicros() / 1000 + ms).toISOString().slice(0, 10);
      const stats = async () => {
        const r = await call(server, 'GET', `/verifications/stats?since=${day(-60 * DAY_MS)}&until=${day(0)}`, { key: world.sandbox.key });
        assert.equal(r.status, 200, r.text);
        return r.body.meta;
      };
      const statsBefore = await stats();
      assert.equal(await countOf(server, 'verifications', world.teamId), 9);
      const sessionsBefore = await countOf(server, 'sessions', world.teamId);
      assert.equal(sessionsBefore, 9);

      const dry = await pruneScans(server.ctx, { days: 30, dryRun: true, actor: cliActor() });
      assert.deepEqual([dry.verifications, dry.sessions, dry.dryRun], [7, 7, true]);
      assert.equal(await countOf(server, 'verifications', world.teamId), 9, 'a dry run deletes nothing');

      const report = await pruneScans(server.ctx, { days: 30, batch: 3, actor: cliActor() });
      assert.equal(report.verifications, dry.verifications);
      assert.equal(report.sessions, dry.sessions);
      // The claimed scan and the recent one stay; so do the sessions they (and the chip) name.
      const kept = await server.ctx.db.kysely.selectFrom('verifications').select(['id', 'session_id']).where('team_id', '=', world.teamId).execute();
      assert.deepEqual(kept.map((v) => v.id).sort(), [claimed.id, recent.id].sort());
      assert.equal(await countOf(server, 'sessions', world.teamId), 2);
      // The statistics come from their own counts: every day reads the same.
      assert.deepEqual(await stats(), statsBefore);
      for (const v of kept) {
        assert.equal((await call(server, 'GET', `/verifications/${v.id}`, { key: world.sandbox.key })).status, 200);
        assert.equal((await call(server, 'GET', `/sessions/${v.session_id}`, { key: world.sandbox.key })).status, 200);
      }

      // Replay protection lives in the chip row: every old tap is still refused.
      for (const url of oldUrls) {
        const again = await scan(server, world, 'sandbox', url);
        assert.deepEqual([again.genuine, again.reason], [false, 'replayed']);
      }
      const next = await scan(server, world, 'sandbox', await tag.nextUrl());
      assert.equal(next.genuine, true);

      // Nothing more to do: a second run deletes nothing.
      const again = await pruneScans(server.ctx, { days: 30, actor: cliActor() });
      assert.deepEqual([again.verifications, again.sessions], [0, 0]);
    });

    test('TAPPROOF_SCAN_RETENTION_DAYS: serve prunes at start, and its metrics count what went', async () => {
      const { server } = suite;
      const world = await server.seedTeam({ name: 'job' });
      const tag = await scannableTag(server, world, 'sandbox');
      for (let i = 0; i < 4; i++) await scan(server, world, 'sandbox', await tag.nextUrl());
      // Aged by hand: the spawned server keeps real time, and these four are 3 days old to it.
      const aged = Date.now() * 1000 - 3 * DAY_MS * 1000;
      await server.ctx.db.kysely.updateTable('verifications').set({ scanned_at: aged }).where('team_id', '=', world.teamId).execute();
      const serve = await startServe({ ...server.storage.env, TAPPROOF_SCAN_RETENTION_DAYS: '2', TAPPROOF_EMBEDDED_WORKER: '1', TAPPROOF_METRICS_TOKEN: 'm' });
      try {
        // The round counts what went once it has been through every world.
        const pruned = async () =>
          parseMetrics(await (await fetch(`${serve.origin}/metrics`, { headers: { authorization: 'Bearer m' } })).text()).get(
            'tapproof_pruned_total{what="verifications"}',
          );
        for (let i = 0; i < 100 && (await pruned()) === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(await pruned(), 4);
        assert.equal(await countOf(server, 'verifications', world.teamId), 0);
      } finally {
        assert.equal(await serve.stop(), 0);
      }
    });

    test('tapproof prune: --dry-run says what would go, a run deletes it, bad arguments are refused', async () => {
      const { server } = suite;
      const env = server.storage.env;
      const dry = await runCli(env, 'prune', '--days', '36500', '--dry-run', '--json');
      assert.equal(dry.code, 0, dry.stderr);
      assert.deepEqual(Object.keys(JSON.parse(dry.stdout)).sort(), ['cutoff', 'dry_run', 'sessions', 'verifications']);
      const human = await runCli(env, 'prune', '--days', '36500', '--pause', '10000');
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /^pruned 0 scans and 0 sessions older than \d{4}-\d{2}-\d{2}T/);
      for (const days of ['0', '-1', '1.5', 'x'])
        assert.match((await runCli(env, 'prune', '--days', days)).stderr, /--days.*must be a whole number of days from 1/);
      for (const pause of ['10001', '-1', 'x']) assert.match((await runCli(env, 'prune', '--days', '1', '--pause', pause)).stderr, /--pause.*from 0 to 10000/);
      const none = await runCli({ ...env, TAPPROOF_SCAN_RETENTION_DAYS: '' }, 'prune');
      assert.deepEqual([none.code, none.stderr], [1, 'tapproof: nothing to prune by: pass --days N or set TAPPROOF_SCAN_RETENTION_DAYS\n']);
    });
  });
}
