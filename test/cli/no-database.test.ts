// Only `serve`, `worker` and `migrate` make a database: every other command pointed at none (a shell without
// DATABASE_URL, a wrong TAPPROOF_DATA_DIR, a PostgreSQL schema never migrated) refuses with one line
// naming the settings, and leaves nothing behind.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { after, describe, test } from 'node:test';
import { runCli } from './process.js';
import { DATABASES, POSTGRES_URL, freshStorage } from '../kit/harness.js';

const COMMANDS: string[][] = [
  ['master', 'rotate', '--mode', 'sandbox'],
  // As a rotation runbook's first step runs it, in a shell without the server's DATABASE_URL.
  ['master', 'rotate', '--mode', 'production'],
  ['teams', 'create', '--name', 'nowhere'],
  ['keys', 'list', '--team', 'team_0000000000000000000000'],
  ['users', 'invite', '--team', 'team_0000000000000000000000', '--email', 'a@example.com', '--role', 'read'],
  ['tags', 'list', '--team', 'team_0000000000000000000000', '--mode', 'sandbox'],
  ['prune', '--days', '30', '--dry-run'],
  ['doctor'],
];

for (const kind of DATABASES) {
  describe(`commands pointed at no database (${kind})`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapproof-nodb-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    if (kind === 'sqlite') {
      test('a missing SQLite file is refused, named, and not created; migrate makes it', async () => {
        const path = join(dir, 'data', 'tapproof.db');
        const keys = { TAPPROOF_MASTER_KEY: randomBytes(32).toString('hex'), TAPPROOF_PREVIOUS_MASTER_KEYS: randomBytes(32).toString('hex') };
        const env = { DATABASE_URL: `sqlite:${path}`, TAPPROOF_DATA_DIR: join(dir, 'data'), ...keys };
        for (const args of COMMANDS) {
          const refused = await runCli(env, ...args);
          assert.equal(refused.code, 1, `${args.join(' ')}: ${refused.stdout}`);
          assert.equal(refused.stdout, '');
          assert.equal(
            refused.stderr,
            `tapproof: no SQLite database at ${path}: set DATABASE_URL (or TAPPROOF_DATA_DIR) to the server's database; only \`tapproof serve\`, \`tapproof worker\` and \`tapproof migrate\` make a new one\n`,
            args.join(' '),
          );
          assert.equal(existsSync(path), false, `${args.join(' ')} made a database`);
        }
        assert.equal((await runCli(env, 'migrate')).code, 0);
        const made = await runCli(env, 'teams', 'create', '--name', 'here', '--json');
        assert.equal(made.code, 0, made.stderr);
        assert.match(JSON.parse(made.stdout).id, /^team_/);
      });
      return;
    }

    test('a PostgreSQL schema never migrated is refused, named, and left empty; migrate makes it', async () => {
      const storage = await freshStorage('postgres');
      try {
        const tables = async () => {
          const client = new pg.Client({ connectionString: POSTGRES_URL });
          await client.connect();
          const schema = new URL(storage.env.DATABASE_URL!).searchParams.get('options')!.split('=')[1]!;
          const { rows } = await client.query('select table_name from information_schema.tables where table_schema = $1', [schema]);
          await client.end();
          return rows.length;
        };
        const env = { ...storage.env, TAPPROOF_MASTER_KEY: randomBytes(32).toString('hex'), TAPPROOF_PREVIOUS_MASTER_KEYS: randomBytes(32).toString('hex') };
        for (const args of COMMANDS) {
          const refused = await runCli(env, ...args);
          assert.equal(refused.code, 1, `${args.join(' ')}: ${refused.stdout}`);
          assert.equal(
            refused.stderr,
            "tapproof: the PostgreSQL schema holds no tapproof database: set DATABASE_URL (or TAPPROOF_DATA_DIR) to the server's database; only `tapproof serve`, `tapproof worker` and `tapproof migrate` make a new one\n",
            args.join(' '),
          );
        }
        assert.equal(await tables(), 0);
        assert.equal((await runCli(env, 'migrate')).code, 0);
        const made = await runCli(env, 'teams', 'create', '--name', 'here', '--json');
        assert.equal(made.code, 0, made.stderr);
        assert.ok((await tables()) > 10);
      } finally {
        await storage.drop();
      }
    });
  });
}
