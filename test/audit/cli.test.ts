// The CLI's changes in the audit log, on both databases: each records the CLI as `user@host` with what it
// set, in its own world (the deployment's own for master keys); `tapproof audit list` reads them back with
// the API's filters and refuses bad ones in one line.
import assert from 'node:assert/strict';
import { hostname, userInfo } from 'node:os';
import { describe, test } from 'node:test';
import { AUDIT_OPERATIONS } from '../../src/audit/operations.js';
import { OPERATIONS as CONSOLE_OPERATIONS } from '../../packages/console/src/audit-operations.js';
import { DATABASES, sharedServer } from '../kit/harness.js';
import type { CliFailed } from '../cli/process.js';
import { cli } from '../cli/process.js';

const CLI = `${userInfo().username}@${hostname()}`;

test("the console's operation filter offers every operation of a world", () => {
  assert.deepEqual(
    [...CONSOLE_OPERATIONS],
    AUDIT_OPERATIONS.filter((o) => !o.startsWith('master.')),
  );
});

for (const kind of DATABASES) {
  describe(`the CLI in the audit log (${kind})`, () => {
    const suite = sharedServer(kind);
    const json = async (...args: string[]) => JSON.parse((await cli(suite.server, [...args, '--json'])).stdout);

    test('teams, keys, the catalog, holdings and master keys: one record each, by the CLI, in its world', async () => {
      const team = (await json('teams', 'create', '--name', 'audited by cli')).id as string;
      const key = await json('keys', 'create', '--team', team, '--mode', 'sandbox', '--role', 'read', '--name', 'reader');
      await json('keys', 'revoke', key.id);
      const product = (await json('products', 'create', '--team', team, '--mode', 'sandbox', '--name', 'Bag')).id as string;
      const token = (
        await json(
          'tokens',
          'create',
          ...['--team', team, '--mode', 'sandbox', '--chain', 'ethereum', '--name', 'T', '--symbol', 'T', '--supply', '1'],
          ...['--contract', '0x5FbDB2315678afecb367f032d93F642f64180aa3', '--token-id', '1', '--standard', 'erc721'],
        )
      ).id as string;
      const tag = (await json('emulator', 'create', '--team', team, '--url', 'https://example.com/audit/cli', '--protocol', 'ntag_223_dna')).id as string;
      await json('tags', 'link', tag, '--product', product, '--token', token);
      await json('holdings', 'set', '--chain', 'ethereum', '--address', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '--token', token);

      const events = (await json('audit', 'list', '--team', team)).reverse();
      assert.deepEqual(
        events.map((e: any) => [e.operation, e.mode, e.resource.id]),
        [
          ['team.create', null, team],
          ['key.create', 'sandbox', key.id],
          ['key.revoke', 'sandbox', key.id],
          ['product.create', 'sandbox', product],
          ['token.create', 'sandbox', token],
          ['tag.emulate', 'sandbox', tag],
          ['tag.link', 'sandbox', tag],
          ['holding.set', 'sandbox', token],
        ],
      );
      for (const e of events) assert.deepEqual([e.actor, e.address, e.request_id], [{ type: 'cli', id: CLI }, null, null]);
      assert.deepEqual(events[1].changes, { role: 'read', name: 'reader', expires_at: null });
      assert.deepEqual(events[6].changes, { product_id: product, token_id: token });
      // Never a key's text.
      assert.ok(!JSON.stringify(events).includes(key.key));

      const before = (await json('audit', 'list', '--deployment')).length;
      const rotated = await json('master', 'rotate', '--mode', 'sandbox');
      const deployment = await json('audit', 'list', '--deployment');
      assert.equal(deployment.length, before + 1);
      assert.deepEqual(
        [deployment[0].operation, deployment[0].team_id, deployment[0].mode, deployment[0].changes],
        ['master.rotate', null, 'sandbox', { generation: rotated.generation, check_value: rotated.check_value }],
      );
    });

    test('filters and refusals', async () => {
      const team = (await json('teams', 'create', '--name', 'filtered')).id as string;
      const key = await json('keys', 'create', '--team', team, '--mode', 'production');
      assert.deepEqual(
        (await json('audit', 'list', '--team', team, '--mode', 'production')).map((e: any) => e.operation),
        ['key.create'],
      );
      assert.equal((await json('audit', 'list', '--resource', key.id)).length, 1);
      assert.equal((await json('audit', 'list', '--team', team, '--operation', 'key.revoke')).length, 0);
      assert.equal((await json('audit', 'list', '--team', team, '--limit', '1')).length, 1);
      for (const [args, message] of [
        [['--operation', 'tag.explode'], /--operation.*must be one of team\.create/],
        [['--limit', '0'], /--limit.*from 1 to 10000/],
        [['--limit', '10001'], /--limit.*from 1 to 10000/],
        [['--since', 'yesterday'], /--since.*ISO 8601/],
      ] as const) {
        await assert.rejects(cli(suite.server, ['audit', 'list', ...args]), (error: CliFailed) => {
          assert.match(error.stderr, message);
          return true;
        });
      }
    });
  });
}
