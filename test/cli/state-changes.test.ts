// Every CLI command that changes state, run as an operator would on both engines: each ends with its result
// and exit code 0, or with one named `tapproof: …` line and exit code 1; never with Node's exit code 13 and
// no word (a promise nothing settles). The sandbox master is rotated, its generation 1 drained and retired
// (on SQLite that retire read the sandbox keys through the database its own transaction held).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { runCli, type Finished } from './process.js';
import { DATABASES, freshStorage, type Storage } from '../kit/harness.js';

const hex = (n: number) => randomBytes(n).toString('hex').toUpperCase();

/** A run that ended as a command must: code 0 with a result, or code 1 with a named line. */
function ended(run: Finished, args: string[]): void {
  const what = `tapproof ${args.join(' ')} (exit ${run.code}): ${run.stdout}${run.stderr}`;
  assert.notEqual(run.code, 13, what);
  assert.ok(run.code === 0 || run.code === 1, what);
  if (run.code === 0) assert.notEqual(run.stdout.trim(), '', what);
  else assert.match(run.stderr, /^tapproof: \S.*\n$/, what);
  // Never a log line: stdout is the result, stderr says things in words (src/cli-kit.ts, commandLog).
  assert.doesNotMatch(run.stdout + run.stderr, /^\{"level"/m, what);
}

for (const kind of DATABASES) {
  describe(`every command that changes state ends, and says how (${kind})`, () => {
    const storages: Storage[] = [];
    after(() => Promise.all(storages.map((s) => s.drop())));

    test('migrate, teams, keys, master keys, chips, catalog, holdings, users, doctor, prune, backup', async () => {
      const storage = await freshStorage(kind);
      storages.push(storage);
      let env: Record<string, string> = { ...storage.env };
      const run = async (...args: string[]) => {
        const r = await runCli(env, ...args);
        ended(r, args);
        return r;
      };
      const ok = async (...args: string[]) => {
        const r = await run(...args);
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
        return r;
      };
      const json = async (...args: string[]) => JSON.parse((await ok(...args, '--json')).stdout);
      const refused = async (pattern: RegExp, ...args: string[]) => {
        const r = await run(...args);
        assert.equal(r.code, 1, `${args.join(' ')}: ${r.stdout}`);
        assert.match(r.stderr, pattern);
      };

      assert.match((await ok('migrate')).stdout, /^applied \d+ migrations: 0001_core/);
      const team = (await json('teams', 'create', '--name', 'every command')).id as string;
      const sub = (await json('teams', 'create', '--name', 'a subteam', '--parent', team)).id as string;
      assert.equal((await json('teams', 'list')).find((t: { id: string }) => t.id === sub).parent_id, team);
      const key = await json('keys', 'create', '--team', team, '--mode', 'sandbox', '--role', 'read', '--name', 'reader');
      const rolled = await json('keys', 'roll', key.id, '--expires-in', '60');
      assert.match(rolled.key, /^tp_sandbox_/);
      await ok('keys', 'revoke', key.id);

      // The sandbox master: rotated, generation 1 has nothing (no chip was made under it), so it retires.
      assert.equal((await json('master', 'rotate', '--mode', 'sandbox')).generation, 2);
      await ok('master', 'rewrap', '--mode', 'sandbox');
      const status = await json('master', 'status', '--mode', 'sandbox');
      assert.deepEqual(
        status.map((g: { generation: number; chips: number; sealed: number }) => [g.generation, g.chips, g.sealed]),
        [
          [1, 0, 0],
          [2, 0, 0],
        ],
      );
      assert.equal((await json('master', 'retire', '--mode', 'sandbox', '--generation', '1')).retired, true);
      await refused(/^tapproof: sandbox master key generation 2 is the current one/, 'master', 'retire', '--mode', 'sandbox', '--generation', '2');

      // Chips under the new generation.
      const tag = (await json('emulator', 'create', '--team', team, '--url', 'https://every.example/e', '--protocol', 'ntag_424_dna')).id as string;
      assert.match((await ok('emulator', 'tap', tag)).stdout, /^https:\/\/every\.example\/e\?\S+\n$/);
      assert.match((await ok('tags', 'tap', '--tag', tag, '--team', team, '--mode', 'sandbox', '--counter', '9')).stdout, /^https:\/\/every\.example\/e\?/);
      const tamperTag = (await json('emulator', 'create', '--team', team, '--url', 'https://every.example/t', '--protocol', 'ntag_424_dna_tag_tamper'))
        .id as string;
      await ok('emulator', 'tamper', tamperTag, 'open');
      const file = join(mkdtempSync(join(tmpdir(), 'tapproof-every-')), 'chips.json');
      writeFileSync(
        file,
        JSON.stringify([
          { url: `https://every.example/i/${hex(4)}`, protocol: 'ntag_424_dna', uid: '04' + hex(6), sdm_meta_read_key: hex(16), sdm_file_read_key: hex(16) },
        ]),
      );
      const [imported] = (await json('tags', 'import', '--team', team, '--mode', 'sandbox', '--file', file)) as string[];
      assert.match(imported!, /^tag_/);
      const after = await json('master', 'status', '--mode', 'sandbox');
      assert.deepEqual(
        after.filter((g: { retired: unknown }) => !g.retired).map((g: { generation: number; chips: number }) => [g.generation, g.chips]),
        [[2, 3]],
      );

      // The catalog and holdings.
      const product = (await json('products', 'create', '--team', team, '--mode', 'sandbox', '--name', 'Every bag')).id as string;
      const erc721 = ['--contract', '0x5FbDB2315678afecb367f032d93F642f64180aa3', '--token-id', '7', '--standard', 'erc721'];
      const tokenArgs = ['--team', team, '--mode', 'sandbox', '--chain', 'ethereum', '--name', 'Every', '--symbol', 'EV', '--supply', '1', ...erc721];
      const token = (await json('tokens', 'create', ...tokenArgs)).id as string;
      await ok('tags', 'link', tag, '--product', product, '--token', token);
      const holder = ['--chain', 'ethereum', '--address', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '--token', token];
      await ok('holdings', 'set', ...holder);
      await ok('holdings', 'unset', ...holder);

      // People.
      const invited = await json('users', 'invite', '--team', team, '--email', `every-${kind}@example.com`, '--role', 'read');
      const user = invited.id as string;
      await ok('users', 'disable', user);
      await ok('users', 'enable', user);
      assert.equal((await json('users', 'role', user, 'write')).role, 'write');
      await ok('users', 'reset', user);

      // Deliveries, retention, counters.
      await refused(/^tapproof: no delivery of event evt_unknown to an enabled webhook\n$/, 'webhooks', 'redeliver', '--event', 'evt_unknown');
      assert.match((await ok('prune', '--days', '30')).stdout, /^pruned 0 scans and 0 sessions older than /);
      assert.equal((await ok('doctor', '--fix')).stdout, 'no drift\n');

      // A production rotation, with the keys as a runbook gives them: the imported chip's keys move on rewrap.
      writeFileSync(
        file,
        JSON.stringify([
          { url: `https://every.example/p/${hex(4)}`, protocol: 'ntag_424_dna', uid: '04' + hex(6), sdm_meta_read_key: hex(16), sdm_file_read_key: hex(16) },
        ]),
      );
      await ok('tags', 'import', '--team', team, '--mode', 'production', '--file', file);
      const current = kind === 'postgres' ? storage.env.TAPPROOF_MASTER_KEY! : null;
      if (current) {
        const next = randomBytes(32).toString('hex');
        env = { ...env, TAPPROOF_MASTER_KEY: next, TAPPROOF_PREVIOUS_MASTER_KEYS: current };
        await ok('master', 'rotate', '--mode', 'production');
      } else {
        await ok('master', 'rotate', '--mode', 'production');
        assert.equal((await json('master', 'rotate', '--mode', 'production')).generation, 3);
      }
      await ok('master', 'rewrap', '--mode', 'production');
      assert.equal((await json('master', 'retire', '--mode', 'production', '--generation', '1')).retired, true);

      if (kind === 'sqlite') {
        const to = join(mkdtempSync(join(tmpdir(), 'tapproof-every-backup-')), 'copy.db');
        assert.match((await ok('backup', '--to', to)).stdout, /^backed up to /);
        const restoredDir = mkdtempSync(join(tmpdir(), 'tapproof-every-restore-'));
        const restored = join(restoredDir, 'tapproof.db');
        env = { DATABASE_URL: `sqlite:${restored}`, TAPPROOF_DATA_DIR: restoredDir };
        assert.match((await ok('restore', '--from', to)).stdout, /^restored /);
        assert.ok(existsSync(restored));
        assert.equal((await ok('doctor')).stdout, 'no drift\n');
      }
    });
  });
}
