// Operator listings (teams, keys, tags), doctor's all-clear, redelivery refusals, and --mode on
// tags link and holdings set, through the real `tapproof` binary on the test server's database.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createProduct, createToken } from '../../src/extension/catalog/service.js';
import { revoke } from '../../src/keys/service.js';
import { DATABASES, call, sharedServer } from '../kit/harness.js';
import { assertError } from '../kit/assertions.js';
import { configure, createTags } from '../tags/helpers.js';
import { runCli } from './process.js';
import { cliActor } from '../../src/audit/record.js';
import { asCli } from '../kit/actors.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

for (const kind of DATABASES) {
  describe(`CLI listings (${kind})`, () => {
    const suite = sharedServer(kind);
    const run = (...args: string[]) => runCli(suite.server.storage.env, ...args);
    async function json(...args: string[]): Promise<any> {
      const result = await run(...args, '--json');
      assert.equal(result.code, 0, result.stderr);
      return JSON.parse(result.stdout);
    }
    async function fails(args: string[], message: RegExp): Promise<void> {
      const result = await run(...args);
      assert.equal(result.code, 1, result.stdout);
      assert.equal(result.stdout, '');
      // The first line says what is wrong (commander follows a usage mistake with the command's help).
      assert.match(result.stderr.split('\n')[0]!, message);
    }

    test('teams list: every team with a header row; --json', async () => {
      const { world } = suite;
      const sub = await suite.server.seedTeam({ name: 'Sub team', parent: world.teamId });
      const teams = await json('teams', 'list');
      const mine = teams.filter((t: any) => t.id === world.teamId || t.id === sub.teamId);
      assert.deepEqual(
        mine.map((t: any) => [t.id, t.name, t.parent_id]),
        [
          [world.teamId, 'team', null],
          [sub.teamId, 'Sub team', world.teamId],
        ],
      );
      assert.ok(mine.every((t: any) => ISO.test(t.created_at)));
      const lines = (await run('teams', 'list')).stdout.trimEnd().split('\n');
      assert.match(lines[0]!, /^id +name +parent_id +created_at$/);
      assert.ok(lines.some((l) => l.startsWith(sub.teamId) && l.includes('Sub team') && l.includes(world.teamId)));
    });

    test('keys list --team [--mode]: ids, modes, times, revocations; never a secret', async () => {
      const world = await suite.server.seedTeam();
      await revoke(suite.server.ctx, world.production.id, cliActor());
      // The sandbox key is used once (its use written at once instead of within the second).
      assert.equal((await call(suite.server, 'GET', '/teams/current', { key: world.sandbox.key })).status, 200);
      await suite.server.ctx.keyUses.flush();
      const all = await json('keys', 'list', '--team', world.teamId);
      assert.match(all[0].last_used_at, ISO);
      assert.equal(all[1].last_used_at, null);
      assert.deepEqual(
        all.map((k: any) => [k.id, k.mode, k.revoked_at === null]),
        [
          [world.sandbox.id, 'sandbox', true],
          [world.production.id, 'production', false],
        ],
      );
      assert.deepEqual(Object.keys(all[0]).sort(), ['created_at', 'expires_at', 'id', 'last_used_at', 'mode', 'name', 'replaced_by', 'revoked_at', 'role']);
      assert.deepEqual([all[0].role, all[0].name, all[0].expires_at, all[0].replaced_by], ['admin', null, null, null]);
      assert.deepEqual(
        (await json('keys', 'list', '--team', world.teamId, '--mode', 'production')).map((k: any) => k.id),
        [world.production.id],
      );
      const human = (await run('keys', 'list', '--team', world.teamId)).stdout;
      assert.match(human.split('\n')[0]!, /^id +mode +role +name +created_at +expires_at +revoked_at +replaced_by +last_used_at$/);
      assert.ok(!human.includes(world.sandbox.key) && !human.includes('tp_'));
      await fails(['keys', 'list', '--team', 'team_0000000000000000000000'], /^tapproof: no team team_0000000000000000000000$/);
      await fails(['keys', 'list', '--team', world.teamId, '--mode', 'live'], /--mode.*must be sandbox or production/);
    });

    test('keys create --role --name --expires, keys roll --expires-in: the API sees the role, the expiry and the overlap', async () => {
      const world = await suite.server.seedTeam();
      const made = await json(
        'keys',
        'create',
        '--team',
        world.teamId,
        '--mode',
        'sandbox',
        '--role',
        'verify',
        '--name',
        'landing backend',
        '--expires',
        '30d',
      );
      assert.deepEqual(Object.keys(made).sort(), ['expires_at', 'id', 'key', 'name', 'role']);
      assert.deepEqual([made.role, made.name], ['verify', 'landing backend']);
      const days = (Date.parse(made.expires_at) - Date.now()) / 86_400_000;
      assert.ok(days > 29.99 && days <= 30, made.expires_at);
      assertError(await call(suite.server, 'GET', '/tags', { key: made.key }), 403, { detail: true });
      const self = await call(suite.server, 'GET', '/keys/current', { key: made.key });
      assert.deepEqual([self.body.data.attributes.role, self.body.data.attributes.expires_at], ['verify', made.expires_at]);
      const rolled = await json('keys', 'roll', made.id, '--expires-in', '3600');
      assert.deepEqual([rolled.replaces, rolled.role], [made.id, 'verify']);
      assert.equal((await call(suite.server, 'GET', '/keys/current', { key: rolled.key })).body.data.id, rolled.id);
      // Inside the overlap the old key still works.
      assert.equal((await call(suite.server, 'GET', '/keys/current', { key: made.key })).status, 200);
      const human = (await run('keys', 'roll', rolled.id)).stdout;
      assert.match(human, new RegExp(`^created verify key key_\\w{22}; ${rolled.id} no longer works\ntp_sandbox_\\w{32}\n\\(the key is shown only now\\)\n$`));
      assertError(await call(suite.server, 'GET', '/keys/current', { key: rolled.key }), 401);
      await fails(['keys', 'roll', rolled.id], new RegExp(`^tapproof: ${rolled.id} cannot roll: the key was already rolled to key_\\w{22}$`));
      await fails(['keys', 'roll', 'key_0000000000000000000000'], /^tapproof: no key key_0000000000000000000000$/);
      await fails(['keys', 'roll', made.id, '--expires-in', '604801'], /--expires-in.*from 0 to 604800/);
      await fails(['keys', 'create', '--team', world.teamId, '--mode', 'sandbox', '--role', 'owner'], /--role.*must be one of admin, write, read, verify/);
      await fails(['keys', 'create', '--team', world.teamId, '--mode', 'sandbox', '--expires', 'soon'], /--expires.*ISO 8601/);
      await fails(['keys', 'create', '--team', world.teamId, '--mode', 'sandbox', '--expires', '2020-01-01'], /^tapproof: --expires must be in the future$/);
      // The API's bound (docs/keys.md): a time from then on, or a duration that ends there, would not read back as it was.
      await fails(
        ['keys', 'create', '--team', world.teamId, '--mode', 'sandbox', '--expires', '2200-01-01T00:00:00Z'],
        /--expires.*must be before 2200-01-01T00:00:00Z/,
      );
      await fails(
        ['keys', 'create', '--team', world.teamId, '--mode', 'sandbox', '--expires', '999999d'],
        /^tapproof: --expires must end before 2200-01-01T00:00:00Z$/,
      );
    });

    test('tags list --team --mode [--status] [--limit]', async () => {
      const world = await suite.server.seedTeam();
      const created = await createTags(suite.server, world.sandbox.key, 3);
      await configure(suite.server, world, created[1]!.id);
      await createTags(suite.server, world.production.key, 1);
      const all = await json('tags', 'list', '--team', world.teamId, '--mode', 'sandbox');
      assert.equal(all.length, 3);
      assert.equal(all[0].id, created[1]!.id, 'the configured tag was updated last');
      assert.deepEqual(
        (await json('tags', 'list', '--team', world.teamId, '--mode', 'sandbox', '--status', 'configured')).map((t: any) => t.id),
        [created[1]!.id],
      );
      assert.equal((await json('tags', 'list', '--team', world.teamId, '--mode', 'sandbox', '--status', 'created')).length, 2);
      assert.equal((await json('tags', 'list', '--team', world.teamId, '--mode', 'production')).length, 1);
      const limited = (await run('tags', 'list', '--team', world.teamId, '--mode', 'sandbox', '--limit', '1')).stdout.trimEnd().split('\n');
      assert.match(limited[0]!, /^id +status +protocol +updated_at +url$/);
      assert.equal(limited.length, 3);
      assert.equal(limited[2], '(1 of 3; --limit shows more)');
      await fails(['tags', 'list', '--team', world.teamId, '--mode', 'sandbox', '--status', 'deleted'], /--status.*must be created or configured/);
      await fails(['tags', 'list', '--team', world.teamId, '--mode', 'sandbox', '--limit', '0'], /--limit.*from 1 to 10000/);
      await fails(['tags', 'list', '--team', world.teamId], /required option '--mode <mode>'/);
      assert.equal((await run('tags', 'list', '--team', (await suite.server.seedTeam()).teamId, '--mode', 'sandbox')).stdout, 'no tags\n');
    });

    test('doctor says "no drift" on a consistent database', async () => {
      assert.deepEqual(await run('doctor'), { code: 0, stdout: 'no drift\n', stderr: '' });
    });

    test('redeliver: an unknown event fails with a message and exit 1', async () => {
      await fails(['webhooks', 'redeliver', '--event', 'evt_unknown'], /^tapproof: no delivery of event evt_unknown to an enabled webhook$/);
      await fails(
        ['webhooks', 'redeliver', '--webhook', 'whk_0000000000000000000000', '--since', '2026-01-01T00:00:00Z'],
        /^tapproof: no webhook whk_0000000000000000000000$/,
      );
    });

    test('tags link and holdings set accept --mode, and refuse a tag or token of the other mode', async () => {
      const world = await suite.server.seedTeam();
      const [tag] = await createTags(suite.server, world.sandbox.key, 1);
      const sandbox = { teamId: world.teamId, mode: 'sandbox' as const };
      const product = await createProduct(suite.server.ctx, asCli(sandbox), { name: 'Bag' });
      const token = await createToken(suite.server.ctx, asCli(sandbox), {
        chain: 'ethereum',
        name: 'Bag',
        symbol: 'BAG',
        supply: 1,
        contract_address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
        token_id: '1',
        standard: 'erc721',
      });
      assert.deepEqual(await json('tags', 'link', tag!.id, '--product', product.id, '--mode', 'sandbox'), { id: tag!.id });
      await fails(['tags', 'link', tag!.id, '--product', product.id, '--mode', 'production'], new RegExp(`no production tag ${tag!.id}`));
      const address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
      const held = await json('holdings', 'set', '--chain', 'ethereum', '--address', address, '--token', token.id, '--mode', 'sandbox');
      assert.deepEqual(held, { token: token.id, address, quantity: '1' });
      await fails(
        ['holdings', 'set', '--chain', 'ethereum', '--address', address, '--token', token.id, '--mode', 'production'],
        new RegExp(`no production token ${token.id}`),
      );
      await fails(
        ['holdings', 'set', '--chain', 'ethereum', '--address', address, '--token', token.id, '--mode', 'test'],
        /--mode.*must be sandbox or production/,
      );
    });
  });
}
