// `tapproof serve` as operators run it: configuration errors, the first-start
// sandbox key, and graceful shutdown.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { DATABASES, call, freshStorage, type Storage } from '../kit/harness.js';
import { runCli, startServe } from '../cli/process.js';
import { createDocument } from '../tags/helpers.js';

describe('configuration errors stop `tapproof serve` with one clear line', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ TAPPROOF_RATE_LIMIT: '0' }, /TAPPROOF_RATE_LIMIT/],
    [{ TAPPROOF_RATE_LIMIT: 'lots' }, /TAPPROOF_RATE_LIMIT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ REDIS_URL: 'http://x' }, /REDIS_URL/],
    [{ TAPPROOF_MASTER_KEY: 'short' }, /TAPPROOF_MASTER_KEY/],
    [{ TAPPROOF_TRUST_PROXY: 'everyone' }, /TAPPROOF_TRUST_PROXY/],
    [{ TAPPROOF_WORKER_METRICS_PORT: '70000' }, /TAPPROOF_WORKER_METRICS_PORT/],
    [{ TAPPROOF_PUBLIC_URL: 'ftp://console.example.com' }, /TAPPROOF_PUBLIC_URL must be an http\(s\) URL/],
    [{ TAPPROOF_SESSION_IDLE_MINUTES: '0' }, /TAPPROOF_SESSION_IDLE_MINUTES/],
    [{ TAPPROOF_SESSION_MAX_HOURS: '721' }, /TAPPROOF_SESSION_MAX_HOURS/],
    [{ TAPPROOF_OIDC_ISSUER: 'https://id.example.com', TAPPROOF_OIDC_CLIENT_ID: 'c' }, /TAPPROOF_OIDC_ISSUER needs TAPPROOF_OIDC_CLIENT_SECRET/],
    // The SMTP URL may hold a password: the line names the variable and the scheme, never the URL.
    [
      { TAPPROOF_SMTP_URL: 'https://user:s3cret@mail.example.com', TAPPROOF_PUBLIC_URL: 'https://c.example.com' },
      /^tapproof: TAPPROOF_SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL, got https:\/\/…$/,
    ],
    [{ TAPPROOF_SMTP_URL: 'smtp://mail.example.com' }, /TAPPROOF_SMTP_URL needs TAPPROOF_PUBLIC_URL: every mail links to the console/],
    [{ TAPPROOF_SMTP_URL: 'smtp://mail.example.com', TAPPROOF_PUBLIC_URL: 'https://c.example.com', TAPPROOF_DIGEST_HOUR: '24' }, /TAPPROOF_DIGEST_HOUR/],
    [
      { TAPPROOF_SMTP_URL: 'smtp://mail.example.com', TAPPROOF_PUBLIC_URL: 'https://c.example.com', TAPPROOF_MAIL_FROM: 'a\nBcc: x@example.com' },
      /TAPPROOF_MAIL_FROM must be one line/,
    ],
  ];
  test('each bad value', async () => {
    const results = await Promise.all(cases.map(([env]) => runCli({ TAPPROOF_DATA_DIR: '/nonexistent/never-created', ...env }, 'serve')));
    results.forEach((result, i) => {
      const [env, pattern] = cases[i];
      const what = JSON.stringify(env);
      assert.notEqual(result.code, 0, what);
      assert.notEqual(result.code, null, `${what} exited by itself`);
      assert.equal(result.stdout, '', what);
      const lines = result.stderr.split('\n').filter((l) => l !== '');
      assert.equal(lines.length, 1, `${what}: ${result.stderr}`);
      assert.match(lines[0], pattern);
      assert.ok(!/\bat .*:\d+/.test(result.stderr) && !/Error:/.test(result.stderr), `${what}: no stack trace: ${result.stderr}`);
      assert.ok(!result.stderr.includes('s3cret'), `${what}: the line shows a password`);
    });
  });
});

test('a TAPPROOF_GEOIP_DB that is not a MaxMind database stops the start, not the first scan', async () => {
  const storage = await freshStorage('sqlite');
  try {
    const notADatabase = join(storage.env.TAPPROOF_DATA_DIR!, 'countries.mmdb');
    writeFileSync(notADatabase, 'not a database');
    const result = await runCli({ ...storage.env, PORT: '0', TAPPROOF_GEOIP_DB: notADatabase }, 'serve');
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, new RegExp(`TAPPROOF_GEOIP_DB: cannot open ${notADatabase} as a MaxMind database`));
  } finally {
    await storage.drop();
  }
});

for (const kind of DATABASES) {
  describe(`first start and shutdown of \`tapproof serve\` (${kind})`, () => {
    let storage: Storage;
    after(() => storage?.drop());

    test('first start prints the sandbox key once with a working curl example; the second start prints nothing', async () => {
      storage = await freshStorage(kind);
      const first = await startServe(storage.env);
      let printed: string;
      try {
        await first.waitFor('curl');
        const out = first.stdout();
        const keys = out.match(/tp_sandbox_[0-9A-Za-z]{32}/g) ?? [];
        assert.ok(keys.length >= 1, out);
        assert.equal(new Set(keys).size, 1, 'one key');
        printed = keys[0]!;
        // Run the printed curl example as an operator would copy it.
        const lines = out.split('\n');
        const start = lines.findIndex((l) => l.trim().startsWith('curl '));
        const command = lines.slice(start, lines.findIndex((l, i) => i >= start && !l.trimEnd().endsWith('\\')) + 1).join('\n');
        assert.ok(command.includes(first.base + '/tags'), command);
        const { stdout } = await promisify(execFile)('sh', ['-c', command]);
        const created = JSON.parse(stdout);
        assert.equal(created.data.length, 1);
        assert.match(created.data[0].id, /^tag_/);
        // The key reads the tag and its team `default`.
        const team = (await call(first, 'GET', `/tags/${created.data[0].id}`, { key: printed })).status;
        assert.equal(team, 200);
      } finally {
        assert.equal(await first.stop(), 0);
      }
      assert.ok(!first.stderr().includes(printed), 'the key is not logged');
      const logged = first
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{'));
      assert.ok(!logged.some((l) => l.includes(printed)), 'no structured log line carries the key');

      const second = await startServe(storage.env);
      try {
        assert.equal((await call(second, 'GET', '/tags', { key: printed })).body.meta.total_count, 1);
        assert.ok(!/tp_sandbox_|curl/.test(second.stdout()), second.stdout());
      } finally {
        assert.equal(await second.stop(), 0);
      }
    });

    test('SIGTERM lets an in-flight request finish, then exits 0', async () => {
      const server = await startServe(storage.env);
      const key = await freshKey(storage);
      const body = JSON.stringify(createDocument(3));
      // Headers first (Expect: 100-continue proves the server took the request), then SIGTERM, then the body.
      const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(`${server.base}/tags`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/vnd.api+json',
            'content-length': String(Buffer.byteLength(body)),
            expect: '100-continue',
          },
        });
        req.on('continue', () => {
          server.child.kill('SIGTERM');
          server.waitFor('shutting down').then(() => req.end(body), reject);
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        });
        req.on('error', reject);
        req.flushHeaders();
      });
      const finished = await response;
      assert.equal(finished.status, 201, finished.text);
      assert.equal(JSON.parse(finished.text).data.length, 3);
      assert.equal(await server.stop(), 0);
      // The tags were committed.
      const db = storage.open();
      try {
        const rows = await db.kysely.selectFrom('tags').select('id').execute();
        assert.ok(JSON.parse(finished.text).data.every((t: any) => rows.some((r) => r.id === t.id)));
      } finally {
        await db.close();
      }
    });
  });
}

/** A sandbox key for the bootstrapped team, made with the CLI. */
async function freshKey(storage: Storage): Promise<string> {
  const db = storage.open();
  const team = await db.kysely.selectFrom('teams').select('id').where('name', '=', 'default').executeTakeFirstOrThrow();
  await db.close();
  const result = await runCli(storage.env, 'keys', 'create', '--team', team.id, '--mode', 'sandbox', '--json');
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout).key;
}
