// Key material (docs/operations.md#master-keys): the database records each mode's master key as
// generation 1 (its check value) on first use; a process with another master refuses to start with
// one line; a scan of a row sealed under another master is a 503, never a 500;
// on PostgreSQL production keys come only from TAPPROOF_MASTER_KEY(_FILE).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { generateSun424 } from '../../src/chips/index.js';
import { checkValue, PRODUCTION_KEY_FILE } from '../../src/master-keys/masters.js';
import { sealer } from '../../src/secrets/index.js';
import { DATABASES, call, freshStorage, type Storage } from '../kit/harness.js';
import { runCli, startServe, type Finished } from '../cli/process.js';

// Only a guard against a process that never exits: on a loaded CI machine every child takes seconds.
const SLOW = 600_000;

const dir = mkdtempSync(join(tmpdir(), 'tapproof-ops-keys-'));
let files = 0;
function chipsFile(entries: unknown): string {
  const path = join(dir, `chips-${++files}.json`);
  writeFileSync(path, JSON.stringify(entries));
  return path;
}
const hex = (n: number) => randomBytes(n).toString('hex').toUpperCase();
const chipEntry = () => ({
  url: `https://brand.example/k/${hex(6)}`,
  protocol: 'ntag_424_dna',
  uid: '04' + hex(6),
  sdm_meta_read_key: hex(16),
  sdm_file_read_key: hex(16),
});
type Entry = ReturnType<typeof chipEntry>;

function scanUrl(entry: Entry, counter: number): string {
  const sun = generateSun424({
    crypto: 'aes',
    uid: Buffer.from(entry.uid, 'hex'),
    counter,
    sdmMetaReadKey: Buffer.from(entry.sdm_meta_read_key, 'hex'),
    sdmFileReadKey: Buffer.from(entry.sdm_file_read_key, 'hex'),
  });
  return `${entry.url}?picc_data=${sun.piccData}&cmac=${sun.cmac}`;
}

/** Exit 1 with exactly one stderr line matching `pattern`, no stack trace; stdout at most the worker's "starting" log line. */
export function assertOneLine(result: Finished, pattern: RegExp, what: string): string {
  assert.equal(result.code, 1, `${what}: ${result.stdout}${result.stderr}`);
  const logged = result.stdout.split('\n').filter((l) => l !== '');
  assert.ok(
    logged.every((l) => /"msg":"tapproof worker starting"/.test(l)),
    `${what}: stdout ${result.stdout}`,
  );
  const lines = result.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `${what}: ${result.stderr}`);
  assert.match(lines[0]!, pattern, what);
  assert.ok(!/^\s+at .*:\d+/m.test(result.stderr) && !/Error:/.test(result.stderr), `${what}: no stack trace: ${result.stderr}`);
  return lines[0]!;
}

async function json(env: Record<string, string>, ...args: string[]): Promise<any> {
  const result = await runCli(env, ...args, '--json');
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

const verifyBody = (url: string) => ({ data: { type: 'verifications', attributes: { url } } });

for (const kind of DATABASES) {
  describe(`master key check values (${kind})`, () => {
    const storages: Storage[] = [];
    after(() => Promise.all(storages.map((s) => s.drop())));

    test(
      'recorded on first use; every process with another master refuses to start with one line; a row sealed under another master scans as 503',
      { timeout: SLOW },
      async () => {
        const storage = await freshStorage(kind);
        storages.push(storage);
        const A = randomBytes(32).toString('hex');
        const B = randomBytes(32).toString('hex');
        const envA = { ...storage.env, TAPPROOF_MASTER_KEY: A };
        const envB = { ...storage.env, TAPPROOF_MASTER_KEY: B };

        // Only serve and migrate make a database (docs/operations.md, start-up errors).
        assert.equal((await runCli(envA, 'migrate')).code, 0);
        const team = await json(envA, 'teams', 'create', '--name', 'ops');
        const live = await json(envA, 'keys', 'create', '--team', team.id, '--mode', 'production');
        const db = storage.open();
        try {
          assert.deepEqual(await db.kysely.selectFrom('master_generations').selectAll().execute(), [], 'nothing recorded before any key material is used');
          const [good, resealed] = [chipEntry(), chipEntry()];
          const ids: string[] = await json(envA, 'tags', 'import', '--team', team.id, '--mode', 'production', '--file', chipsFile([good, resealed]));
          const checks = await db.kysely.selectFrom('master_generations').select(['mode', 'generation', 'check_value']).execute();
          assert.deepEqual(checks, [{ mode: 'production', generation: 1, check_value: checkValue(Buffer.from(A, 'hex')) }]);
          assert.ok(!JSON.stringify(checks).toLowerCase().includes(A.slice(0, 16)), 'the check value is not the key');

          // Every process that touches chips refuses to start under B, with one line saying what to do.
          const refusals = await Promise.all([
            runCli(envB, 'serve'),
            runCli(envB, 'worker'),
            runCli(envB, 'tags', 'import', '--team', team.id, '--mode', 'production', '--file', chipsFile([chipEntry()])),
            runCli(envB, 'emulator', 'create', '--team', team.id, '--url', 'https://e.x/never', '--protocol', 'ntag_424_dna'),
            runCli(envB, 'webhooks', 'attempts', 'whk_0000000000000000000000'),
          ]);
          const expected = new RegExp(
            `^tapproof: TAPPROOF_MASTER_KEY does not match any production master key generation of this database \\(current generation 1, check value ${checkValue(Buffer.from(A, 'hex'))}; this process has ${checkValue(Buffer.from(B, 'hex'))}\\): start every process with the current master key`,
          );
          refusals.forEach((r, i) => assertOneLine(r, expected, `refusal ${i}`));
          // Without any master the database's production key material is out of reach: refused too, naming the variable.
          const noKey = { ...storage.env };
          delete (noKey as Record<string, string>).TAPPROOF_MASTER_KEY;
          assertOneLine(
            await runCli(noKey, 'serve'),
            /^tapproof: this database holds production chip keys .*check value .*TAPPROOF_MASTER_KEY/,
            'serve without a key',
          );
          // Nothing was imported or created by the refused commands.
          assert.equal((await db.kysely.selectFrom('tags').select('id').execute()).length, 2);
          // Commands that touch no key material still work.
          assert.match((await json(envB, 'keys', 'create', '--team', team.id, '--mode', 'sandbox')).key, /^tp_sandbox_/);

          // A row sealed under another master (restored from elsewhere): 503 with the standard body, never 500.
          const other = sealer(randomBytes(32), 'chip-keys');
          await db.kysely
            .updateTable('chips')
            .set({ sdm_meta_read_key_sealed: other.seal(resealed.sdm_meta_read_key), sdm_file_read_key_sealed: other.seal(resealed.sdm_file_read_key) })
            .where('tag_id', '=', ids[1]!)
            .execute();
          const server = await startServe(envA);
          try {
            const ok = await call(server, 'POST', '/verifications', { key: live.key, body: verifyBody(scanUrl(good, 1)) });
            assert.equal(ok.status, 201, ok.text);
            assert.equal(ok.body.data.attributes.genuine, true);
            const foreign = await call(server, 'POST', '/verifications', { key: live.key, body: verifyBody(scanUrl(resealed, 1)) });
            assert.equal(foreign.status, 503, foreign.text);
            assert.deepEqual(foreign.body, {
              errors: [
                {
                  status: '503',
                  title: 'Service Unavailable',
                  detail:
                    'the server has no usable key material for this mode: its operator must set TAPPROOF_MASTER_KEY (or TAPPROOF_MASTER_KEY_FILE); the server log says why',
                },
              ],
            });
            assert.equal(foreign.headers.get('content-type'), 'application/vnd.api+json');
            // The cause is in the operator's log, once per failed request, without key material.
            await server.waitFor('key material unavailable');
            const logged = server
              .stdout()
              .split('\n')
              .filter((l) => l.includes('key material unavailable'));
            assert.equal(logged.length, 1, server.stdout());
            assert.match(logged[0]!, /sealed with another master key/);
            assert.ok(!logged[0]!.includes(resealed.sdm_file_read_key));
            const stored = await db.kysely.selectFrom('verifications').select('tag_id').execute();
            assert.deepEqual(
              stored.map((r) => r.tag_id),
              [ids[0]],
              'no verdict is recorded for the chip that could not be checked',
            );
          } finally {
            assert.equal(await server.stop(), 0);
          }

          // A database from before the check values (none recorded) is judged by the values already sealed in it.
          await db.kysely.deleteFrom('master_generations').execute();
          const C = randomBytes(32).toString('hex');
          assertOneLine(
            await runCli({ ...storage.env, TAPPROOF_MASTER_KEY: C }, 'worker'),
            /^tapproof: TAPPROOF_MASTER_KEY is not the production master key this database's chips\.sdm_file_read_key_sealed values were sealed under/,
            'upgrade',
          );
          assert.deepEqual(await db.kysely.selectFrom('master_generations').selectAll().execute(), [], 'a refused process records nothing');
        } finally {
          await db.close();
        }
      },
    );
  });
}

if (DATABASES.includes('postgres')) {
  describe('production key material on PostgreSQL', () => {
    const storages: Storage[] = [];
    after(() => Promise.all(storages.map((s) => s.drop())));

    test(
      'without TAPPROOF_MASTER_KEY: production imports and API calls fail with one line / 503; TAPPROOF_MASTER_KEY_FILE works',
      { timeout: SLOW },
      async () => {
        const storage = await freshStorage('postgres');
        storages.push(storage);
        const { TAPPROOF_MASTER_KEY: _unused, ...noKey } = storage.env;
        // The data directory does not exist: nothing may try to write a key file there.
        const env = { ...noKey, TAPPROOF_DATA_DIR: join(dir, 'never-created') };
        assert.equal((await runCli(env, 'migrate')).code, 0);
        const team = await json(env, 'teams', 'create', '--name', 'pg');
        const live = await json(env, 'keys', 'create', '--team', team.id, '--mode', 'production');
        const refused = await runCli(env, 'tags', 'import', '--team', team.id, '--mode', 'production', '--file', chipsFile([chipEntry()]));
        assertOneLine(refused, /^tapproof: production chip keys on PostgreSQL need TAPPROOF_MASTER_KEY or TAPPROOF_MASTER_KEY_FILE/, 'import');
        assert.ok(!existsSync(join(dir, 'never-created')));

        // The server starts (nothing recorded yet); a production call that needs the master is a 503.
        const server = await startServe(env);
        try {
          const hook = await call(server, 'POST', '/webhooks', {
            key: live.key,
            body: { data: { type: 'webhooks', attributes: { url: 'https://hooks.example.com/x' } } },
          });
          assert.equal(hook.status, 503, hook.text);
          await server.waitFor('key material unavailable');
          assert.match(server.stdout(), /production chip keys on PostgreSQL need TAPPROOF_MASTER_KEY/);
        } finally {
          assert.equal(await server.stop(), 0);
        }

        // A secrets file (what a container mount provides) is a full replacement for the variable.
        const keyFile = join(dir, `master-${++files}.key`);
        const key = randomBytes(32).toString('hex');
        writeFileSync(keyFile, key + '\n', { mode: 0o600 });
        const ids = await json(
          { ...env, TAPPROOF_MASTER_KEY_FILE: keyFile },
          'tags',
          'import',
          '--team',
          team.id,
          '--mode',
          'production',
          '--file',
          chipsFile([chipEntry()]),
        );
        assert.equal(ids.length, 1);
        // The same key given directly is the same master; a process without one now refuses to start.
        assert.equal(
          (await json({ ...env, TAPPROOF_MASTER_KEY: key }, 'tags', 'import', '--team', team.id, '--mode', 'production', '--file', chipsFile([chipEntry()])))
            .length,
          1,
        );
        assertOneLine(await runCli(env, 'worker'), /TAPPROOF_MASTER_KEY \(or TAPPROOF_MASTER_KEY_FILE\)/, 'worker without a key');
        assertOneLine(
          await runCli({ ...env, TAPPROOF_MASTER_KEY_FILE: join(dir, 'missing.key') }, 'serve'),
          /^tapproof: TAPPROOF_MASTER_KEY_FILE: cannot read .*missing\.key \(ENOENT\)$/,
          'missing file',
        );
      },
    );
  });
}

if (DATABASES.includes('sqlite')) {
  describe('production key material on SQLite', () => {
    const storages: Storage[] = [];
    after(() => Promise.all(storages.map((s) => s.drop())));

    test('without TAPPROOF_MASTER_KEY a key file is generated beside the database once, with a warning', { timeout: SLOW }, async () => {
      const storage = await freshStorage('sqlite');
      storages.push(storage);
      assert.equal((await runCli(storage.env, 'migrate')).code, 0);
      const team = await json(storage.env, 'teams', 'create', '--name', 'lite');
      const first = await runCli(storage.env, 'tags', 'import', '--team', team.id, '--mode', 'production', '--file', chipsFile([chipEntry()]), '--json');
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stderr, /WARNING: TAPPROOF_MASTER_KEY is not set; production chip keys descend from the master key just generated in/);
      const path = join(dirname(storage.target.kind === 'sqlite' ? storage.target.path : ''), PRODUCTION_KEY_FILE);
      assert.equal(statSync(path).mode & 0o777, 0o600);
      const second = await runCli(storage.env, 'tags', 'import', '--team', team.id, '--mode', 'production', '--file', chipsFile([chipEntry()]), '--json');
      assert.equal(second.code, 0, second.stderr);
      assert.match(second.stderr, /master key kept in/);
    });
  });
}
