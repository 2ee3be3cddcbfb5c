// No command ends silently. Retiring a sandbox master key generation on SQLite read the sandbox keys through
// the database while its own transaction held SQLite's one connection: the read waited for ever and the
// process ended with Node's exit code 13 and no word. It now retires on both engines; such a nested use of a
// SQLite database is an immediate, named error; two servers started at once on a new SQLite file both start;
// and a command whose work can never settle ends with one line naming what it waited for, and exit code 1.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { builtProgram, runCli, startServe, type ServeProcess } from './process.js';
import { DATABASES, freshStorage, type Storage } from '../kit/harness.js';
import { openDatabase } from '../../src/db/database.js';

for (const kind of DATABASES) {
  describe(`master retire ends, and says so (${kind})`, () => {
    const storages: Storage[] = [];
    after(() => Promise.all(storages.map((s) => s.drop())));

    test('rotate the sandbox master, then retire generation 1 that nothing depends on: exit 0 and a line', async () => {
      const storage = await freshStorage(kind);
      storages.push(storage);
      const env = storage.env;
      assert.equal((await runCli(env, 'migrate')).code, 0);
      const rotated = await runCli(env, 'master', 'rotate', '--mode', 'sandbox', '--json');
      assert.equal(rotated.code, 0, rotated.stderr);
      assert.equal(JSON.parse(rotated.stdout).generation, 2);
      const retired = await runCli(env, 'master', 'retire', '--mode', 'sandbox', '--generation', '1', '--json');
      assert.equal(retired.code, 0, `exit ${retired.code}: ${retired.stderr}`);
      assert.deepEqual({ ...JSON.parse(retired.stdout), check_value: undefined }, { mode: 'sandbox', generation: 1, check_value: undefined, retired: true });
      const again = await runCli(env, 'master', 'retire', '--mode', 'sandbox', '--generation', '1', '--json');
      assert.equal(again.code, 0, again.stderr);
      assert.equal(JSON.parse(again.stdout).retired, false);
    });
  });
}

test('a command whose work can never settle ends with one line naming what it waited for, exit code 1', () => {
  // The built program's own main, with one more command whose work nothing will ever answer.
  const cli = pathToFileURL(join(builtProgram(), '..', 'cli.js')).href;
  const file = join(mkdtempSync(join(tmpdir(), 'tapproof-hang-')), 'hang.mjs');
  writeFileSync(
    file,
    `const { main, program } = await import(${JSON.stringify(cli)});
program.command('hang').action(() => new Promise(() => {}));
await main(['node', 'tapproof', 'hang']);
`,
  );
  const run = spawnSync(process.execPath, [file], { encoding: 'utf8' });
  assert.equal(run.status, 1);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr, 'tapproof: the command could not finish: it was waiting for the command, and nothing was left to answer it\n');
});

test('on SQLite, the database used inside one of its transactions is an immediate, named error', async () => {
  const storage = await freshStorage('sqlite');
  // As a one-shot command opens it (src/cli.ts).
  const db = openDatabase(storage.target, { catchNestedUse: true });
  try {
    const nested = db.kysely.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      return sql`select 2`.execute(db.kysely);
    });
    const never = new Promise((_, reject) => setTimeout(() => reject(new Error('the nested read is still waiting after 2 s')), 2000).unref());
    await assert.rejects(Promise.race([nested, never]), /^Error: database used outside its transaction inside a transaction: /);
    // Used alongside a transaction, not inside it, the database waits for the transaction as before.
    let ended = false;
    const held = db.kysely.transaction().execute(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ended = true;
    });
    const { rows } = await sql<{ n: number }>`select 3 as n`.execute(db.kysely);
    assert.deepEqual([rows, ended], [[{ n: 3 }], true]);
    await held;
  } finally {
    await db.close();
    await storage.drop();
  }
});

test('two servers started at once on a new SQLite file both start, and one of them makes the first key', async () => {
  for (let round = 1; round <= 3; round++) {
    const storage = await freshStorage('sqlite');
    const servers = await Promise.allSettled([startServe(storage.env), startServe(storage.env)]);
    try {
      for (const s of servers) assert.equal(s.status, 'fulfilled', `round ${round}: ${(s as PromiseRejectedResult).reason}`);
      const out = servers.map((s) => (s as PromiseFulfilledResult<ServeProcess>).value.stdout());
      assert.equal(out.filter((o) => o.includes('first start on an empty database')).length, 1, `round ${round}`);
    } finally {
      await Promise.all(servers.flatMap((s) => (s.status === 'fulfilled' ? [s.value.stop()] : [])));
      await storage.drop();
    }
  }
});
