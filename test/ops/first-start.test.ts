// The first start's sandbox key is never lost: team `default` and its key are created only once the
// server listens, so a first start that cannot listen (its PORT taken) creates nothing, and the next
// start on a free port prints a key that works. Real `tapproof serve` processes on both engines.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, test } from 'node:test';
import { DATABASES, call, freshStorage } from '../kit/harness.js';
import { runCli, startServe } from '../cli/process.js';

// Only a guard against a process that never exits: on a loaded CI machine every child takes seconds.
const SLOW = 600_000;

for (const kind of DATABASES) {
  describe(`first start (${kind})`, () => {
    test('PORT taken → exit 1 and nothing created; then a free port → the key is printed and works', { timeout: SLOW }, async () => {
      const storage = await freshStorage(kind);
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      try {
        const port = (taken.address() as { port: number }).port;
        const failed = await runCli({ ...storage.env, PORT: String(port), HOST: '127.0.0.1' }, 'serve');
        assert.equal(failed.code, 1, failed.stderr);
        assert.doesNotMatch(failed.stdout, /sandbox API key/);
        const db = storage.open();
        try {
          assert.deepEqual(await db.kysely.selectFrom('teams').select('id').execute(), []);
        } finally {
          await db.close();
        }
        const server = await startServe(storage.env);
        try {
          await server.waitFor('shown only now');
          const key = /^\s+(tp_sandbox_[0-9A-Za-z]{32})$/m.exec(server.stdout())?.[1];
          assert.ok(key, server.stdout());
          const tags = await call(server, 'GET', '/tags', { key });
          assert.equal(tags.status, 200, tags.text);
          // The team's id can be found again later.
          const teamId = /created team (team_[0-9A-Za-z]+) \("default"\)/.exec(server.stdout())![1]!;
          const listed = await runCli(storage.env, 'teams', 'list', '--json');
          assert.equal(listed.code, 0, listed.stderr);
          const teams = JSON.parse(listed.stdout);
          assert.deepEqual(
            teams.map((t: any) => [t.id, t.name, t.parent_id]),
            [[teamId, 'default', null]],
          );
          assert.match(teams[0].created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
          const human = await runCli(storage.env, 'teams', 'list');
          // A header row, then the one team: no parent, the same time as in JSON.
          const lines = human.stdout.trimEnd().split('\n');
          assert.equal(lines.length, 2, human.stdout);
          assert.match(lines[0]!, /^id +name +parent_id +created_at$/);
          assert.match(lines[1]!, new RegExp(`^${teamId} +default +- +${teams[0].created_at.replace(/\./g, '\\.')}$`));
        } finally {
          await server.stop();
        }
      } finally {
        await new Promise((resolve) => taken.close(resolve));
        await storage.drop();
      }
    });
  });
}

describe('PostgreSQL without TAPPROOF_MASTER_KEY', { skip: !DATABASES.includes('postgres') }, () => {
  test('the start says production is unavailable and why; a production POST /webhooks → 503 naming the variable', { timeout: SLOW }, async () => {
    const storage = await freshStorage('postgres');
    const env = Object.fromEntries(Object.entries(storage.env).filter(([name]) => !name.startsWith('TAPPROOF_MASTER_KEY')));
    const server = await startServe(env);
    try {
      assert.match(server.stderr(), /^tapproof: WARNING: production is unavailable: PostgreSQL needs TAPPROOF_MASTER_KEY \(or TAPPROOF_MASTER_KEY_FILE\)/m);
      const teamId = /created team (team_[0-9A-Za-z]+)/.exec(server.stdout())![1]!;
      const created = await runCli(env, 'keys', 'create', '--team', teamId, '--mode', 'production', '--json');
      assert.equal(created.code, 0, created.stderr);
      const { key } = JSON.parse(created.stdout);
      const hook = await call(server, 'POST', '/webhooks', { key, body: { data: { type: 'webhooks', attributes: { url: 'https://hooks.example.com/in' } } } });
      assert.equal(hook.status, 503);
      assert.deepEqual(hook.body, {
        errors: [
          {
            status: '503',
            title: 'Service Unavailable',
            detail:
              'the server has no usable key material for this mode: its operator must set TAPPROOF_MASTER_KEY (or TAPPROOF_MASTER_KEY_FILE); the server log says why',
          },
        ],
      });
    } finally {
      await server.stop();
      await storage.drop();
    }
  });
});
