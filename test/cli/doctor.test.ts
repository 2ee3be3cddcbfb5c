// `tapproof doctor`: tag counters recomputed from the rows, drift reported per
// team and mode, repaired with --fix (docs/hardening.md).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES, startServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { createTags, totalCount } from '../tags/helpers.js';
import { runCli } from './process.js';

for (const kind of DATABASES) {
  describe(`tapproof doctor (${kind})`, () => {
    let server: TestServer;
    let a: SeededTeam;
    let b: SeededTeam;
    before(async () => {
      server = await startServer(kind);
      a = await server.seedTeam({ name: 'a' });
      b = await server.seedTeam({ name: 'b' });
      await createTags(server, a.sandbox.key, 3);
      await createTags(server, a.production.key, 1);
      await createTags(server, b.sandbox.key, 2);
    });
    after(() => server.close());

    const doctor = (...args: string[]) => runCli(server.storage.env, 'doctor', ...args);

    test('a consistent database: "no drift", exit 0', async () => {
      assert.deepEqual(await doctor(), { code: 0, stdout: 'no drift\n', stderr: '' });
    });

    test('corrupted counters: exact drift per team and mode, exit 1; --fix repairs them in one go', async () => {
      const db = server.ctx.db.kysely;
      // Too high, missing (counts as 0) and too low, in two teams.
      await db.updateTable('tag_counts').set({ tag_count: 7 }).where('team_id', '=', a.teamId).where('mode', '=', 'sandbox').execute();
      await db.deleteFrom('tag_counts').where('team_id', '=', a.teamId).where('mode', '=', 'production').execute();
      await db.updateTable('tag_counts').set({ tag_count: -1 }).where('team_id', '=', b.teamId).where('mode', '=', 'sandbox').execute();
      // A counter for a world without rows.
      await db.insertInto('tag_counts').values({ team_id: b.teamId, mode: 'production', tag_count: 4 }).execute();
      assert.equal(await totalCount(server, a.sandbox.key), 7, 'GET /tags reports the stored counter');

      const expected = [
        { team_id: a.teamId, mode: 'production', counter: 0, rows: 1 },
        { team_id: a.teamId, mode: 'sandbox', counter: 7, rows: 3 },
        { team_id: b.teamId, mode: 'production', counter: 4, rows: 0 },
        { team_id: b.teamId, mode: 'sandbox', counter: -1, rows: 2 },
      ].sort((x, y) => (x.team_id + x.mode < y.team_id + y.mode ? -1 : 1));
      const line = (d: (typeof expected)[number], fixed: string) =>
        `${d.team_id} ${d.mode}: counter ${d.counter}, rows ${d.rows} (${d.counter > d.rows ? '+' : ''}${d.counter - d.rows})${fixed}`;

      const report = await doctor();
      assert.deepEqual(report, { code: 1, stdout: expected.map((d) => line(d, '')).join('\n') + '\n', stderr: '' });
      const json = await doctor('--json');
      assert.equal(json.code, 1, json.stderr);
      assert.deepEqual(JSON.parse(json.stdout), { ok: false, drift: expected, fixed: false });
      assert.equal(await totalCount(server, a.sandbox.key), 7, 'reporting changes nothing');

      const fix = await doctor('--fix');
      assert.deepEqual(fix, { code: 0, stdout: expected.map((d) => line(d, ', fixed')).join('\n') + '\n', stderr: '' });
      assert.deepEqual(await Promise.all([a.sandbox, a.production, b.sandbox, b.production].map((k) => totalCount(server, k.key))), [3, 1, 2, 0]);
      // Each CLI run starts a process (seconds on a busy machine): the check after the fix also covers --json on a clean database.
      const again = await doctor('--fix', '--json');
      assert.deepEqual([again.code, JSON.parse(again.stdout)], [0, { ok: true, drift: [], fixed: false }]);
    });
  });
}
