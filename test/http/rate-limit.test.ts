// Rate limit: per client IP across the API, plain-text 429 without rate-limit
// headers, health probes exempt, X-Forwarded-For only when trusted, and one
// shared budget across server processes with Redis.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES, REDIS_URL, call, randomIp, freshStorage, startServer, type ApiResponse, type Storage, type TestServer } from '../kit/harness.js';
import { startServe, type ServeProcess } from '../cli/process.js';
import { loadConfig } from '../../src/config.js';
import { sharedServer } from '../kit/harness.js';

const LIMIT = 5;

function assertLimited(response: ApiResponse): void {
  assert.equal(response.status, 429, response.text);
  assert.equal(response.text, 'Too Many Requests');
  assert.match(response.headers.get('content-type')!, /^text\/plain/);
  for (const name of response.headers.keys()) {
    assert.ok(!name.startsWith('x-ratelimit') && name !== 'retry-after' && !name.startsWith('ratelimit'), `header ${name}`);
  }
}

function assertNoLimitHeaders(response: ApiResponse): void {
  for (const name of response.headers.keys()) assert.ok(!name.startsWith('x-ratelimit') && name !== 'retry-after', `header ${name} on ${response.status}`);
}

for (const kind of DATABASES) {
  describe(`rate limit, in-process (${kind})`, () => {
    const suite = sharedServer(kind, { TAPPROOF_RATE_LIMIT: String(LIMIT) });

    test('the 6th request of a minute → 429 plain text; /healthz stays exempt; X-Forwarded-For is ignored', async () => {
      const { server, world } = suite;
      // The budget covers every request of the IP: authenticated, unauthenticated, errors.
      const first = [
        await call(server, 'GET', '/tags', { key: world.sandbox.key }),
        await call(server, 'GET', '/tags'),
        await call(server, 'GET', '/tags/tag_0000000000000000000000', { key: world.sandbox.key }),
      ];
      first.forEach(assertNoLimitHeaders);
      assert.deepEqual(
        first.map((r) => r.status),
        [200, 401, 404],
      );
      // seedTeam used no HTTP; 2 more requests reach the limit.
      assert.equal((await call(server, 'POST', '/tags', { key: world.sandbox.key, body: { data: [] } })).status, 400);
      assert.equal((await call(server, 'GET', '/tags', { key: world.sandbox.key })).status, 200);
      assertLimited(await call(server, 'GET', '/tags', { key: world.sandbox.key }));
      assertLimited(await call(server, 'POST', '/tags', { key: world.sandbox.key, body: { data: [] } }));
      assertLimited(await call(server, 'GET', '/tags', { key: world.sandbox.key, headers: { 'x-forwarded-for': randomIp() } }));
      assertLimited(await call(server, 'GET', '/openapi.json'));
      for (let i = 0; i < LIMIT + 2; i++) {
        const health = await fetch(`${server.origin}/healthz`);
        assert.equal(health.status, 200);
        await health.arrayBuffer();
      }
      assert.equal((await fetch(`${server.origin}/readyz`)).status, 200);
    });
  });
}

describe('rate limit with TAPPROOF_TRUST_PROXY', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(DATABASES[0], { TAPPROOF_RATE_LIMIT: String(LIMIT), TAPPROOF_TRUST_PROXY: 'true' });
  });
  after(() => server.close());

  test('each X-Forwarded-For client has its own budget', async () => {
    const [a, b] = [randomIp(), randomIp()];
    for (let i = 0; i < LIMIT; i++) assert.equal((await call(server, 'GET', '/tags', { headers: { 'x-forwarded-for': a } })).status, 401);
    assertLimited(await call(server, 'GET', '/tags', { headers: { 'x-forwarded-for': a } }));
    assert.equal((await call(server, 'GET', '/tags', { headers: { 'x-forwarded-for': b } })).status, 401);
    // The client is the left-most address of the chain the trusted proxy passes on.
    assertLimited(await call(server, 'GET', '/tags', { headers: { 'x-forwarded-for': `${a}, 127.0.0.1` } }));
  });
});

for (const kind of DATABASES) {
  describe(`rate limit shared through Redis by two server processes (${kind})`, () => {
    let storage: Storage;
    const servers: ServeProcess[] = [];
    before(async () => {
      storage = await freshStorage(kind);
      const env = { ...storage.env, REDIS_URL, TAPPROOF_RATE_LIMIT: String(LIMIT), TAPPROOF_TRUST_PROXY: 'true', LOG_LEVEL: 'info' };
      // One after the other: the first one migrates and bootstraps the empty database.
      servers.push(await startServe(env));
      servers.push(await startServe(env));
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await storage.drop();
    });

    test('requests to either process draw on one budget per client IP', async () => {
      const [one, two] = servers;
      assert.notEqual(one.origin, two.origin);
      const ip = randomIp();
      const headers = { 'x-forwarded-for': ip };
      const statuses = [];
      for (let i = 0; i < LIMIT; i++) statuses.push((await call(i % 2 === 0 ? one : two, 'GET', '/tags', { headers })).status);
      assert.deepEqual(statuses, Array(LIMIT).fill(401));
      assertLimited(await call(one, 'GET', '/tags', { headers }));
      assertLimited(await call(two, 'GET', '/tags', { headers }));
      // Another client is unaffected on both.
      const other = { 'x-forwarded-for': randomIp() };
      assert.equal((await call(one, 'GET', '/tags', { headers: other })).status, 401);
      assert.equal((await call(two, 'GET', '/tags', { headers: other })).status, 401);
    });
  });
}

describe('TAPPROOF_REDIS_PREFIX: deployments sharing one Redis', () => {
  const servers: TestServer[] = [];
  before(async () => {
    const prefix = `tp${randomIp().replace(/\./g, '')}`;
    for (const own of ['a', 'b', 'a']) {
      servers.push(
        await startServer(DATABASES[0]!, { REDIS_URL, TAPPROOF_RATE_LIMIT: String(LIMIT), TAPPROOF_TRUST_PROXY: 'true', TAPPROOF_REDIS_PREFIX: prefix + own }),
      );
    }
  });
  after(() => Promise.all(servers.map((s) => s.close())));

  test('two prefixes have separate budgets for one IP; one prefix is one budget', async () => {
    const [a, b, alsoA] = servers as [TestServer, TestServer, TestServer];
    const ip = randomIp();
    const get = (server: TestServer) => call(server, 'GET', '/tags', { headers: { 'x-forwarded-for': ip } });
    for (let i = 0; i < LIMIT; i++) assert.equal((await get(a)).status, 401);
    assertLimited(await get(a));
    assertLimited(await get(alsoA));
    assert.equal((await get(b)).status, 401);
  });

  test('a prefix that is not 1-64 letters, digits, dashes, underscores, dots or colons is refused at start', () => {
    for (const bad of [' ', 'a b', 'x'.repeat(65), 'é']) {
      assert.throws(() => loadConfig({ TAPPROOF_REDIS_PREFIX: bad }), /TAPPROOF_REDIS_PREFIX/, bad);
    }
    assert.equal(loadConfig({}).redisPrefix, 'tapproof');
  });
});
