// The operator CLI (docs/decisions.md §3) against the same database as a running server.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, call } from '../kit/harness.js';
import { createTag } from '../tags/helpers.js';
import { assertError } from '../kit/assertions.js';
import { sharedServer } from '../kit/harness.js';
import { runCli } from './process.js';

/** Runs a `--json` command that must succeed and print exactly one JSON line. */
async function json(env: Record<string, string>, ...args: string[]): Promise<any> {
  const result = await runCli(env, ...args, '--json');
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, '');
  assert.ok(result.stdout.endsWith('\n') && result.stdout.indexOf('\n') === result.stdout.length - 1, `one line: ${result.stdout}`);
  return JSON.parse(result.stdout);
}

/** A command that must fail with one clear line on stderr and no stack trace. */
async function fails(env: Record<string, string>, ...args: string[]): Promise<string> {
  const result = await runCli(env, ...args);
  assert.notEqual(result.code, 0, result.stdout);
  assert.equal(result.stdout, '');
  const lines = result.stderr.trim().split('\n');
  assert.ok(!/\n\s+at /.test(result.stderr), `no stack trace: ${result.stderr}`);
  return lines[0];
}

for (const kind of DATABASES) {
  describe(`CLI (${kind})`, () => {
    const suite = sharedServer(kind);

    test('teams create, keys create and keys revoke with --json, while the server runs', async () => {
      const { server } = suite;
      const env = server.storage.env;
      const team = await json(env, 'teams', 'create', '--name', 'Acme');
      assert.deepEqual(Object.keys(team), ['id']);
      assert.match(team.id, /^team_[0-9A-Za-z]{22}$/);
      const sub = await json(env, 'teams', 'create', '--name', 'Acme EU', '--parent', team.id);
      assert.deepEqual(Object.keys(sub), ['id']);

      const [sandbox, live] = await Promise.all(['sandbox', 'production'].map((mode) => json(env, 'keys', 'create', '--team', sub.id, '--mode', mode)));
      assert.deepEqual(Object.keys(sandbox), ['id', 'key', 'role', 'name', 'expires_at']);
      assert.deepEqual([sandbox.role, sandbox.name, sandbox.expires_at], ['admin', null, null]);
      assert.match(sandbox.id, /^key_[0-9A-Za-z]{22}$/);
      assert.match(sandbox.key, /^tp_sandbox_[0-9A-Za-z]{32}$/);
      assert.match(live.key, /^tp_live_[0-9A-Za-z]{32}$/);

      // The keys work against the running server, in their own world.
      const teamDoc = await call(server, 'GET', `/teams/${sub.id}`, { key: sandbox.key });
      assert.equal(teamDoc.status, 200, teamDoc.text);
      assert.deepEqual(teamDoc.body.data.attributes.name, 'Acme EU');
      assert.equal(teamDoc.body.data.attributes.parent_id, team.id);
      const tag = await createTag(server, sandbox.key);
      assert.equal((await call(server, 'GET', `/tags/${tag.id}`, { key: sandbox.key })).status, 200);
      assertError(await call(server, 'GET', `/tags/${tag.id}`, { key: live.key }), 404);
      assert.equal((await call(server, 'GET', `/keys/${live.id}`, { key: live.key })).body.data.attributes.mode, 'production');

      // The key is stored only as a hash.
      const stored = await server.ctx.db.kysely.selectFrom('api_keys').selectAll().where('id', '=', sandbox.id).executeTakeFirstOrThrow();
      assert.ok(!Object.values(stored).some((v) => typeof v === 'string' && v.includes(sandbox.key.slice(11))));

      const revoked = await json(env, 'keys', 'revoke', sandbox.id);
      assert.equal(revoked.id, sandbox.id);
      assertError(await call(server, 'GET', `/tags/${tag.id}`, { key: sandbox.key }), 401);
      assertError(await call(server, 'GET', '/tags', { key: sandbox.key }), 401);
      assert.equal((await call(server, 'GET', '/tags', { key: live.key })).status, 200, 'the other key still works');
    });

    test('operator mistakes fail with one line and a non-zero exit', async () => {
      const env = suite.server.storage.env;
      const checks: [string[], RegExp][] = [
        [['keys', 'create', '--team', 'team_0000000000000000000000', '--mode', 'sandbox'], /team_0000000000000000000000/],
        [['keys', 'revoke', 'key_0000000000000000000000'], /key_0000000000000000000000/],
      ];
      // Mistakes caught before the database is touched: once is enough.
      if (kind === DATABASES[0]) {
        checks.push(
          [['keys', 'create', '--team', suite.world.teamId, '--mode', 'staging'], /sandbox or production/],
          [['teams', 'create', '--name', 'x', '--parent', 'team_0000000000000000000000'], /team_0000000000000000000000/],
          [['teams', 'create'], /--name/],
        );
      }
      const lines = await Promise.all(checks.map(([args]) => fails(env, ...args)));
      lines.forEach((line, i) => assert.match(line, checks[i][1]));
    });
  });
}

test('emulator tamper --help names the states it takes, and another is refused naming them', async () => {
  const help = await runCli({}, 'emulator', 'tamper', '--help');
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^ {2}state +the loop as the next tap reads it \(choices: "open", "closed"\)$/m);
  const refused = await runCli({}, 'emulator', 'tamper', 'tag_00000000000000000000aa', 'ajar');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^error: command-argument value 'ajar' is invalid for argument 'state'\. Allowed choices are open, closed\.$/m);
});
