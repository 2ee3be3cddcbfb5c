// `tapproof users` on both databases: invite prints a link that works, list shows the team's users,
// disable/enable/role/reset act and record the CLI as their author; bad options fail in one line.
import assert from 'node:assert/strict';
import { hostname, userInfo } from 'node:os';
import { describe, test } from 'node:test';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { cli, cliResult } from '../cli/process.js';
import { PASSWORD, authCall, redeemed, tokenOf } from './helpers.js';

const CLI = `${userInfo().username}@${hostname()}`;

for (const kind of DATABASES) {
  describe(`tapproof users (${kind})`, () => {
    const suite = sharedServer(kind);
    // Its path is not the console's: only the origin counts.
    const env = { TAPPROOF_PUBLIC_URL: 'https://console.example.com/ignored/path' };
    const json = async (...args: string[]) => JSON.parse((await cli(suite.server, [...args, '--json'], { env })).stdout);

    test('without TAPPROOF_PUBLIC_URL the link is made from HOST and PORT, and stderr says it is a guess', async () => {
      const { server } = suite;
      const world = await server.seedTeam({ name: 'guessed links' });
      for (const [hostEnv, origin] of [
        [{ PORT: '18500' }, 'http://localhost:18500'],
        [{ PORT: '18501', HOST: '127.0.0.2' }, 'http://127.0.0.2:18501'],
        [{ PORT: '18502', HOST: '::1' }, 'http://[::1]:18502'],
      ] as const) {
        const made = await cli(
          server,
          ['users', 'invite', '--team', world.teamId, '--email', `guess-${origin.length}-${hostEnv.PORT}-${kind}@example.com`, '--role', 'read'],
          {
            env: hostEnv,
          },
        );
        const url = made.stdout.trim().split('\n')[1]!;
        assert.match(url, new RegExp(`^${origin.replace(/[.[\]]/g, '\\$&')}/console/welcome#[A-Za-z0-9_-]{43}$`));
        assert.equal(
          made.stderr,
          `tapproof: the link's address ${origin} is a guess from HOST and PORT (as this shell sets them): set TAPPROOF_PUBLIC_URL to where people reach the console\n`,
        );
      }
    });

    test('invite → a link on TAPPROOF_PUBLIC_URL that sets a password; list, role, disable, enable, reset', async () => {
      const { server, world } = suite;
      const human = await cli(server, ['users', 'invite', '--team', world.teamId, '--email', `Mo-${kind}@Example.com`, '--role', 'write'], { env });
      const [first, url, note] = human.stdout.trim().split('\n');
      assert.match(first!, new RegExp(`^invited mo-${kind}@example\\.com \\(write\\) as usr_[0-9A-Za-z]{22}$`));
      assert.match(url!, /^https:\/\/console\.example\.com\/console\/welcome#[A-Za-z0-9_-]{43}$/);
      assert.match(note!, /^\(works once, until \d{4}-\d\d-\d\dT[\d:.]+Z; shown only now\)$/);
      assert.equal(human.stderr, '');
      const id = first!.split(' as ')[1]!;
      await redeemed(server, tokenOf(url!));

      const listed = await json('users', 'list', '--team', world.teamId);
      assert.deepEqual(
        listed.map((u: any) => [u.id, u.email, u.role, u.password, u.passkeys, u.disabled_at]),
        [[id, `mo-${kind}@example.com`, 'write', true, 0, null]],
      );
      assert.deepEqual(await json('users', 'role', id, 'read'), { id, email: `mo-${kind}@example.com`, role: 'read' });
      assert.deepEqual(await json('users', 'disable', id), { id, email: `mo-${kind}@example.com`, disabled: true });
      assert.equal((await authCall(server, 'POST', '/auth/sign-in', { body: { email: `mo-${kind}@example.com`, password: PASSWORD } })).status, 401);
      assert.deepEqual(await json('users', 'enable', id), { id, email: `mo-${kind}@example.com`, disabled: false });
      assert.equal((await authCall(server, 'POST', '/auth/sign-in', { body: { email: `mo-${kind}@example.com`, password: PASSWORD } })).status, 200);
      const reset = await json('users', 'reset', id);
      assert.match(reset.link, /^https:\/\/console\.example\.com\/console\/welcome#/);
      assert.equal((await authCall(server, 'POST', '/auth/sign-in', { body: { email: `mo-${kind}@example.com`, password: PASSWORD } })).status, 401);

      const events = await server.ctx.db.kysely.selectFrom('audit_events').selectAll().where('resource_id', '=', id).orderBy('id').execute();
      assert.deepEqual(
        events.map((e) => [e.operation, e.actor_type, e.actor_type === 'cli' ? e.actor_id === CLI : e.actor_id === id]),
        [
          ['user.invite', 'cli', true],
          ['user.set_password', 'user', true],
          ['user.update', 'cli', true],
          ['user.update', 'cli', true],
          ['user.update', 'cli', true],
          ['user.reset', 'cli', true],
        ],
      );
    });

    test('refusals: the first line says why, a non-zero exit, nothing made', async () => {
      const { server, world } = suite;
      const before = (await server.ctx.db.kysely.selectFrom('users').select('id').execute()).length;
      for (const [args, line] of [
        [['users', 'invite', '--team', world.teamId, '--email', 'nope', '--role', 'read'], /option '--email <email>' argument 'nope' is invalid/],
        [['users', 'invite', '--team', world.teamId, '--email', 'a@b.cc', '--role', 'verify'], /must be one of admin, write, read/],
        [['users', 'invite', '--team', 'team_0000000000000000000000', '--email', 'a@b.cc', '--role', 'read'], /no team team_0000000000000000000000/],
        [['users', 'invite', '--team', world.teamId, '--email', `MO-${kind}@example.com`, '--role', 'read'], /has an account: A user with this email exists/],
        [['users', 'disable', 'usr_0000000000000000000000'], /no user usr_0000000000000000000000/],
        [['users', 'role', 'usr_0000000000000000000000', 'owner'], /must be one of admin, write, read/],
        [['users', 'list', '--team', 'team_0000000000000000000000'], /no team team_0000000000000000000000/],
      ] as const) {
        const result = await cliResult(server, [...args]);
        assert.notEqual(result.code, 0, args.join(' '));
        assert.match(result.stderr.split('\n')[0]!, line, args.join(' '));
      }
      assert.equal((await server.ctx.db.kysely.selectFrom('users').select('id').execute()).length, before);
    });
  });
}
