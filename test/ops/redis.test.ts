// Redis failure modes (docs/operations.md#redis): a Redis that is down at start or goes away
// while serving costs no request more than the bounded command timeout, the
// limiter counts in the process meanwhile, the log gets one line per state
// change, and /readyz reports it. A private redis-server on a spare port is
// started and killed here; the shared one is never touched.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { DATABASES, freshStorage, type Storage } from '../kit/harness.js';
import { startServe, type ServeProcess } from '../cli/process.js';

// Only a guard against a process that never exits: on a loaded CI machine every child takes seconds.
const SLOW = 600_000;

const LIMIT = 4;
// Generous against a loaded machine, far below the 6-10 s the defect took:
// a request may wait at most one bounded Redis command (1 s).
const PATIENCE_MS = 4000;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A throwaway redis-server; resolves once it answers PING. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
  client.on('error', () => undefined);
  try {
    for (;;) {
      try {
        await client.connect().catch(() => undefined);
        if ((await client.ping()) === 'PONG') return child;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  } finally {
    client.disconnect();
  }
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function get(server: ServeProcess, path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(server.origin + path, { signal: AbortSignal.timeout(PATIENCE_MS) });
  return { status: response.status, body: await response.text() };
}

/** `count` unauthenticated API requests in a row: each is counted by the limiter before auth. */
async function statuses(server: ServeProcess, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((await get(server, '/api/v1/tags')).status);
  return out;
}

const lines = (server: ServeProcess, text: string) =>
  server
    .stdout()
    .split('\n')
    .filter((l) => l.includes(text));

for (const kind of DATABASES) {
  describe(`Redis failure modes (${kind})`, () => {
    const storages: Storage[] = [];
    const redises: ChildProcess[] = [];
    after(async () => {
      await Promise.all(redises.map(stopRedis));
      await Promise.all(storages.map((s) => s.drop()));
    });

    test('Redis down at start: the server starts, answers at once, counts in the process, says so once, /readyz degraded', { timeout: SLOW }, async () => {
      const storage = await freshStorage(kind);
      storages.push(storage);
      const port = await freePort(); // nothing listens there
      const server = await startServe({ ...storage.env, REDIS_URL: `redis://127.0.0.1:${port}`, TAPPROOF_RATE_LIMIT: String(LIMIT) });
      try {
        await server.waitFor('redis unavailable');
        assert.deepEqual(await statuses(server, LIMIT + 2), [401, 401, 401, 401, 429, 429]);
        const ready = await get(server, '/readyz');
        assert.equal(ready.status, 200);
        assert.deepEqual(JSON.parse(ready.body), { status: 'degraded', database: 'ok', redis: 'down' });
        assert.equal(lines(server, 'redis').length, 1, server.stdout());
        assert.equal(server.stderr(), '', 'no ioredis stack traces');
      } finally {
        assert.equal(await server.stop(), 0);
      }
    });

    test('Redis goes away while serving and comes back: one line each way, shared counts again after', { timeout: SLOW }, async () => {
      const storage = await freshStorage(kind);
      storages.push(storage);
      const port = await freePort();
      let redis = await startRedis(port);
      redises.push(redis);
      const server = await startServe({ ...storage.env, REDIS_URL: `redis://127.0.0.1:${port}`, TAPPROOF_RATE_LIMIT: String(LIMIT) });
      const inspect = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
      inspect.on('error', () => undefined);
      try {
        await server.waitFor('redis connected');
        assert.deepEqual(JSON.parse((await get(server, '/readyz')).body), { status: 'ok', database: 'ok', redis: 'ok' });
        assert.deepEqual(await statuses(server, 2), [401, 401]);
        await inspect.connect();
        assert.equal(await inspect.get('tapproof-rl:127.0.0.1'), '2', 'counted in Redis while it is up');
        inspect.disconnect();

        await stopRedis(redis);
        await server.waitFor('redis down');
        // Counted in the process from zero: the full budget, then 429; no request waits on the dead Redis.
        assert.deepEqual(await statuses(server, LIMIT + 1), [401, 401, 401, 401, 429]);
        const ready = await get(server, '/readyz');
        assert.deepEqual([ready.status, JSON.parse(ready.body)], [200, { status: 'degraded', database: 'ok', redis: 'down' }]);
        assert.equal(lines(server, 'redis down').length, 1, server.stdout());

        redis = await startRedis(port);
        redises.push(redis);
        await server.waitFor('redis up again');
        // A fresh Redis holds no counts: shared counting starts over there.
        assert.deepEqual(await statuses(server, 1), [401]);
        await inspect.connect();
        assert.equal(await inspect.get('tapproof-rl:127.0.0.1'), '1');
        assert.deepEqual(JSON.parse((await get(server, '/readyz')).body), { status: 'ok', database: 'ok', redis: 'ok' });
        // One line per state change, and nothing on stderr.
        assert.deepEqual(
          lines(server, 'redis').map((l) => JSON.parse(l).msg.split(':')[0]),
          ['redis connected', 'redis down', 'redis up again'],
        );
        assert.equal(server.stderr(), '');
      } finally {
        inspect.disconnect();
        assert.equal(await server.stop(), 0);
      }
    });
  });
}
