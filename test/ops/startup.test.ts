// Start-up failures that must be one line naming what to change (docs/operations.md#start-up-errors):
// a port in use, a bad HOST, every PostgreSQL connection failure, an
// unrecognised DATABASE_URL, master key files; and what `worker` and `migrate`
// say about themselves.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseDatabaseUrl, ConfigError } from '../../src/config.js';
import { DATABASES, POSTGRES_URL, freshStorage, type Storage } from '../kit/harness.js';
import { REPO, runCli, startWorker, type Finished } from '../cli/process.js';

// Only a guard against a process that never exits: on a loaded CI machine every child takes seconds.
const SLOW = 600_000;

const dir = mkdtempSync(join(tmpdir(), 'tapproof-ops-start-'));

/** Exit 1, exactly one stderr line matching `pattern`, no stack trace, no error in the log. */
function assertOneLine(result: Finished, pattern: RegExp, what: string): void {
  assert.equal(result.code, 1, `${what}: ${result.stdout}${result.stderr}`);
  const lines = result.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `${what}: ${result.stderr}`);
  assert.match(lines[0]!, pattern, what);
  assert.ok(!/^\s+at .*:\d+/m.test(result.stderr + result.stdout) && !/Error:/.test(result.stderr), `${what}: no stack trace: ${result.stderr}`);
  assert.ok(!/"level":5\d/.test(result.stdout), `${what}: no error in the log: ${result.stdout}`);
}

function postgresUrl(change: (url: URL) => void): string {
  const url = new URL(POSTGRES_URL);
  change(url);
  return url.toString();
}

async function listening(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('start-up failures are one line', () => {
  test('PORT already in use names PORT; an impossible HOST names HOST', { timeout: SLOW }, async () => {
    const taken = await listening();
    try {
      // A database file each: the three first starts do not wait on each other's migrations.
      const sqlite = (name: string) => ({ DATABASE_URL: `sqlite:${join(dir, `${name}.db`)}` });
      const [inUse, badHost, foreignHost] = await Promise.all([
        runCli({ ...sqlite('in-use'), PORT: String(taken.port), HOST: '127.0.0.1' }, 'serve'),
        runCli({ ...sqlite('bad-host'), PORT: '0', HOST: '999.1.1.1' }, 'serve'),
        runCli({ ...sqlite('foreign-host'), PORT: '0', HOST: '192.0.2.1' }, 'serve'),
      ]);
      assertOneLine(
        inUse,
        new RegExp(`^tapproof: PORT ${taken.port} is already in use on HOST 127\\.0\\.0\\.1: stop the other process or set another PORT$`),
        'in use',
      );
      assertOneLine(badHost, /^tapproof: HOST "999\.1\.1\.1" is not an address or name this machine can listen on/, 'bad host');
      assertOneLine(foreignHost, /^tapproof: HOST 192\.0\.2\.1 is not an address of this machine/, 'foreign host');
    } finally {
      await taken.close();
    }
  });

  test('every PostgreSQL connection failure, for serve, worker and migrate', { timeout: SLOW }, async () => {
    const closed = await listening();
    const refusedPort = closed.port;
    await closed.close(); // nothing listens there now
    const cases: [string, string, RegExp][] = [
      [
        'missing database',
        postgresUrl((u) => (u.pathname = '/tapproof_no_such_database')),
        /^tapproof: PostgreSQL at .* has no such database \(DATABASE_URL\): database "tapproof_no_such_database" does not exist; create it/,
      ],
      [
        'refused',
        postgresUrl((u) => (u.port = String(refusedPort))),
        new RegExp(`^tapproof: cannot connect to PostgreSQL at 127\\.0\\.0\\.1:${refusedPort} \\(DATABASE_URL\\): connection refused`),
      ],
      [
        'unknown host',
        postgresUrl((u) => (u.hostname = 'no-such-host.invalid')),
        /^tapproof: cannot connect to PostgreSQL \(DATABASE_URL\): unknown host "no-such-host\.invalid"$/,
      ],
      [
        'unknown role',
        postgresUrl((u) => (u.username = 'tapproof_no_such_role')),
        /^tapproof: PostgreSQL at .* refused the connection \(DATABASE_URL\): role "tapproof_no_such_role" does not exist$/,
      ],
    ];
    for (const [what, url, pattern] of cases) {
      await Promise.all(
        ['serve', 'worker', 'migrate'].map(async (command) => {
          assertOneLine(await runCli({ DATABASE_URL: url, PORT: '0', HOST: '127.0.0.1' }, command), pattern, `${command}: ${what}`);
        }),
      );
    }
  });

  test('DATABASE_URL: unrecognised values are refused and create nothing', { timeout: SLOW }, async () => {
    const cases: [string, RegExp][] = [
      ['nonsense', /got "nonsense"$/],
      ['data/tapproof.db', /got "data\/tapproof\.db"$/],
      ['mysql://u:secret@db/x', /got scheme "mysql"$/],
      ['postgress://u:secret@db/x', /got scheme "postgress"$/],
      ['sqlite:', /DATABASE_URL=sqlite: needs a file path/],
      ['file:', /DATABASE_URL=file: needs a file path/],
    ];
    const results = await Promise.all(cases.map(([value]) => runCli({ DATABASE_URL: value, PORT: '0' }, 'migrate')));
    results.forEach((result, i) => {
      const [value, pattern] = cases[i]!;
      assertOneLine(result, /^tapproof: DATABASE_URL[ =]/, value);
      assert.match(result.stderr.trim(), pattern, value);
      assert.ok(!result.stderr.includes('secret'), 'a password in the value is never echoed');
    });
    assert.ok(!existsSync(join(REPO, 'nonsense')) && !existsSync(join(REPO, 'data/tapproof.db')), 'no SQLite file was created');
  });

  test('DATABASE_URL: the accepted forms', () => {
    const forms: [string, string][] = [
      ['sqlite:./data/a.db', './data/a.db'],
      ['sqlite:///var/lib/tapproof/a.db', '/var/lib/tapproof/a.db'],
      ['file:./data/a.db', './data/a.db'],
      ['file:///var/lib/tapproof/a.db', '/var/lib/tapproof/a.db'],
      ['/var/lib/tapproof/a.db', '/var/lib/tapproof/a.db'],
      ['./a.db', './a.db'],
      ['../a.db', '../a.db'],
    ];
    for (const [raw, path] of forms) assert.deepEqual(parseDatabaseUrl(raw, './data'), { kind: 'sqlite', path }, raw);
    for (const raw of ['postgres://u@h/db', 'postgresql://u@h:5433/db']) assert.deepEqual(parseDatabaseUrl(raw, './data'), { kind: 'postgres', url: raw });
    assert.deepEqual(parseDatabaseUrl(undefined, '/srv'), { kind: 'sqlite', path: '/srv/tapproof.db' });
    for (const raw of ['nonsense', 'tapproof.db', 'redis://x', 'file://host/x']) assert.throws(() => parseDatabaseUrl(raw, './data'), ConfigError, raw);
  });

  test('TAPPROOF_MASTER_KEY_FILE: unreadable, malformed, or set together with TAPPROOF_MASTER_KEY', { timeout: SLOW }, async () => {
    const bad = join(dir, 'bad.key');
    writeFileSync(bad, 'not a key\n');
    const good = join(dir, 'good.key');
    writeFileSync(good, 'ab'.repeat(32) + '\n');
    const sqlite = { DATABASE_URL: `sqlite:${join(dir, 'keys.db')}` };
    const [missing, malformed, both] = await Promise.all([
      runCli({ ...sqlite, TAPPROOF_MASTER_KEY_FILE: join(dir, 'nope.key') }, 'migrate'),
      runCli({ ...sqlite, TAPPROOF_MASTER_KEY_FILE: bad }, 'migrate'),
      runCli({ ...sqlite, TAPPROOF_MASTER_KEY_FILE: good, TAPPROOF_MASTER_KEY: 'cd'.repeat(32) }, 'migrate'),
    ]);
    assertOneLine(missing, /^tapproof: TAPPROOF_MASTER_KEY_FILE: cannot read .*nope\.key \(ENOENT\)$/, 'missing');
    assertOneLine(malformed, /^tapproof: TAPPROOF_MASTER_KEY_FILE: .*bad\.key must hold 64 hex characters/, 'malformed');
    assert.ok(!malformed.stderr.includes('not a key'), 'the file content is never echoed');
    assertOneLine(both, /^tapproof: set only one of TAPPROOF_MASTER_KEY and TAPPROOF_MASTER_KEY_FILE$/, 'both');
  });
});

for (const kind of DATABASES) {
  describe(`what long-running commands say (${kind})`, () => {
    const storages: Storage[] = [];
    after(() => Promise.all(storages.map((s) => s.drop())));

    test('migrate names the migrations it applied, then says none were pending', { timeout: SLOW }, async () => {
      const storage = await freshStorage(kind);
      storages.push(storage);
      const first = await runCli(storage.env, 'migrate');
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /^applied \d+ migrations: 0001_core, 0002_webhooks, 0003_chips_verifications, .*0006_master_key_checks.*\n$/);
      const second = await runCli(storage.env, 'migrate');
      assert.equal(second.stdout, 'no migrations pending; the database is up to date\n');
      const json = await runCli(storage.env, 'migrate', '--json');
      assert.deepEqual(JSON.parse(json.stdout), { ok: true, applied: [] });
    });

    test('worker logs starting, ready, and a final line on SIGTERM', { timeout: SLOW }, async () => {
      const storage = await freshStorage(kind);
      storages.push(storage);
      const worker = await startWorker(storage.env);
      assert.equal(await worker.stop(), 0, worker.stdout() + worker.stderr());
      const out = worker.stdout();
      const messages = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
      assert.deepEqual(
        messages.map((m) => m.msg),
        ['tapproof worker starting', 'tapproof worker ready', 'tapproof worker stopping: finishing in-flight work', 'tapproof worker stopped'],
      );
      assert.equal(messages[0].database, kind);
      assert.ok(messages[1].jobs.includes('webhook-delivery'), JSON.stringify(messages[1]));
      assert.equal(messages[2].signal, 'SIGTERM');
      assert.equal(worker.stderr(), '');
    });
  });
}
