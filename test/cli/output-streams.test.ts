// A command's results are on stdout and its diagnostics on stderr, so that `URL=$(tapproof tags tap …)`
// reads the URL alone: a warning the platform logs while the command runs (here, a process that lacks the
// current production master key generation, as during a rotation) is one `tapproof: WARNING: …` line on
// stderr, never a JSON log line on stdout.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { runCli } from './process.js';
import { DATABASES, freshStorage, type Storage } from '../kit/harness.js';

const hex = (n: number) => randomBytes(n).toString('hex').toUpperCase();

for (const kind of DATABASES) {
  describe(`results on stdout, diagnostics on stderr (${kind})`, () => {
    const storages: Storage[] = [];
    after(() => Promise.all(storages.map((s) => s.drop())));

    test('tags tap during a production rotation: stdout is exactly the URL, stderr the warning line', async () => {
      const storage = await freshStorage(kind);
      storages.push(storage);
      const A = randomBytes(32).toString('hex');
      const B = randomBytes(32).toString('hex');
      const envA = { ...storage.env, TAPPROOF_MASTER_KEY: A };
      const json = async (env: Record<string, string>, ...args: string[]) => {
        const r = await runCli(env, ...args, '--json');
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
        return JSON.parse(r.stdout);
      };
      assert.equal((await runCli(envA, 'migrate')).code, 0);
      const team = await json(envA, 'teams', 'create', '--name', 'streams');
      const file = join(mkdtempSync(join(tmpdir(), 'tapproof-streams-')), 'chips.json');
      const url = `https://brand.example/s/${hex(6)}`;
      writeFileSync(file, JSON.stringify([{ url, protocol: 'ntag_424_dna', uid: '04' + hex(6), sdm_meta_read_key: hex(16), sdm_file_read_key: hex(16) }]));
      const [tagId] = (await json(envA, 'tags', 'import', '--team', team.id, '--mode', 'production', '--file', file)) as string[];
      await json({ ...storage.env, TAPPROOF_MASTER_KEY: B, TAPPROOF_PREVIOUS_MASTER_KEYS: A }, 'master', 'rotate', '--mode', 'production');

      // A process that still has only the old key (it still opens the imported chip's keys).
      const tapped = await runCli(envA, 'tags', 'tap', '--tag', tagId!, '--team', team.id, '--mode', 'production', '--counter', '7');
      assert.equal(tapped.code, 0, tapped.stderr);
      assert.match(tapped.stdout, new RegExp(`^${url.replace(/[.]/g, '\\.')}\\?\\S+\\n$`));
      const lines = tapped.stderr.trimEnd().split('\n');
      assert.deepEqual(
        lines.filter((line) => line.includes('lacks the current production master key generation')),
        [
          'tapproof: WARNING: this process lacks the current production master key generation; it serves what older generations derive and open, and refuses new chips and secrets (503) until restarted with it',
        ],
      );
      assert.ok(
        lines.every((line) => line.startsWith('tapproof: ')),
        tapped.stderr,
      );
      assert.ok(!tapped.stdout.includes('{'), tapped.stdout);
    });
  });
}

for (const kind of DATABASES.filter((k) => k === 'sqlite')) {
  test(`SQLite without TAPPROOF_MASTER_KEY: each command's stdout is its result alone, the key file's warning on stderr (${kind})`, async () => {
    const storage = await freshStorage(kind);
    try {
      const env = storage.env;
      assert.equal((await runCli(env, 'migrate')).code, 0);
      const team = JSON.parse((await runCli(env, 'teams', 'create', '--name', 'streams', '--json')).stdout).id as string;
      const file = join(mkdtempSync(join(tmpdir(), 'tapproof-streams-')), 'chips.json');
      const url = `https://brand.example/k/${hex(6)}`;
      writeFileSync(file, JSON.stringify([{ url, protocol: 'ntag_424_dna', uid: '04' + hex(6), sdm_meta_read_key: hex(16), sdm_file_read_key: hex(16) }]));
      const warned = /^tapproof: WARNING: TAPPROOF_MASTER_KEY is not set; production chip keys descend from the master key (just generated|kept) in /m;
      const imported = await runCli(env, 'tags', 'import', '--team', team, '--mode', 'production', '--file', file, '--json');
      assert.equal(imported.code, 0, imported.stderr);
      const [tagId] = JSON.parse(imported.stdout) as string[];
      assert.match(imported.stderr, warned);
      const tapped = await runCli(env, 'tags', 'tap', '--tag', tagId!, '--team', team, '--mode', 'production', '--counter', '3');
      assert.equal(tapped.code, 0, tapped.stderr);
      assert.match(tapped.stdout, new RegExp(`^${url.replace(/[.]/g, '\\.')}\\?\\S+\\n$`));
      assert.match(tapped.stderr, warned);
      const status = await runCli(env, 'master', 'status', '--mode', 'production', '--json');
      assert.equal(JSON.parse(status.stdout)[0].chips, 1);
    } finally {
      await storage.drop();
    }
  });
}
