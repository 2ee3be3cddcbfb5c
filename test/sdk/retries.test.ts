// How often and how soon @tapproof/sdk sends a request again, against a loopback server that
// answers as a misbehaving server or proxy would: a 429 that asks for no wait at all, 503s.
// Each test counts the requests the server got.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, test } from 'node:test';
import { Tapproof, TapproofError } from '@tapproof/sdk';
import { against, client, gaps, tooMany, type StandIn } from './stand-in.js';

const refusal = async (work: Promise<unknown>) => {
  const error = await work.then(
    () => assert.fail('not refused'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof TapproofError, String(error));
  return error;
};

/** Each gap at least as long as the backoff asks (a timer may fire a millisecond early by performance.now()). */
function assertWaitsAtLeast(server: StandIn, waits: number[]) {
  const seen = gaps(server.arrivals);
  assert.equal(seen.length, waits.length);
  seen.forEach((gap, i) =>
    assert.ok(gap >= waits[i]! - 2, `wait ${i}: ${gap.toFixed(1)} ms, expected at least ${waits[i]} ms (${seen.map(Math.round).join(', ')})`),
  );
}

describe('@tapproof/sdk retries against a misbehaving server', () => {
  test('429 with Retry-After: 0: a verification is sent 7 times by default (6 retries, waits doubling), then rate_limited', async () => {
    await against(tooMany({ 'retry-after': '0' }), async (server) => {
      const error = await refusal(client(server, { retry: { baseDelayMs: 100 } }).verifications.verify('https://example.com/t?picc_data=AA&cmac=BB'));
      assert.deepEqual([error.status, error.code, error.title], [429, 'rate_limited', 'Too Many Requests']);
      assert.equal(server.arrivals.length, 7);
      assert.equal(new Set(server.arrivals.map((a) => `${a.method} ${a.path} ${a.body}`)).size, 1);
      assert.equal(server.arrivals[0]!.path, '/api/v1/verifications');
      assertWaitsAtLeast(server, [100, 200, 400, 800, 1600, 3200]);
    });
  });

  test('429 with RateLimit-Reset: 0: keys.list with maxRetries 3 is sent 4 times; the wait never falls below 100 ms', async () => {
    await against(tooMany({ 'ratelimit-reset': '0' }), async (server) => {
      const error = await refusal(client(server, { retry: { maxRetries: 3, baseDelayMs: 0 } }).keys.list());
      assert.deepEqual([error.status, error.code], [429, 'rate_limited']);
      assert.deepEqual(
        server.arrivals.map((a) => `${a.method} ${a.path}`),
        Array(4).fill('GET /api/v1/keys'),
      );
      assertWaitsAtLeast(server, [100, 200, 400]);
    });
  });

  test('maxRetries 0 sends a request once', async () => {
    await against(tooMany({ 'retry-after': '0' }), async (server) => {
      assert.equal((await refusal(client(server, { retry: { maxRetries: 0 } }).tags.get('tag_x'))).code, 'rate_limited');
      assert.equal(server.arrivals.length, 1);
    });
  });

  test('the total wait for the rate limit is capped: no retry whose wait would pass rateLimitWaitMs', async () => {
    await against(tooMany({ 'x-ratelimit-reset': '0' }), async (server) => {
      // Waits of 100 and 200 ms fit in 350; the third, 400 ms, would not.
      const error = await refusal(client(server, { retry: { baseDelayMs: 100, rateLimitWaitMs: 350 } }).teams.current());
      assert.equal(error.code, 'rate_limited');
      assert.equal(server.arrivals.length, 3);
    });
    await against(tooMany({ 'retry-after': '3600' }), async (server) => {
      const started = performance.now();
      assert.equal((await refusal(client(server).tags.get('tag_x'))).code, 'rate_limited');
      assert.ok(performance.now() - started < 1000, 'an hour asked for is not waited');
      assert.equal(server.arrivals.length, 1);
    });
  });

  test('a longer Retry-After than the backoff is waited in full', async () => {
    let answered = 0;
    await against(
      (res) =>
        ++answered === 1 ? tooMany({ 'retry-after': '1' })(res) : res.writeHead(200, { 'content-type': 'application/vnd.api+json' }).end('{"data":[]}'),
      async (server) => {
        assert.deepEqual(await client(server, { retry: { baseDelayMs: 100 } }).keys.list(), []);
        assertWaitsAtLeast(server, [1000]);
      },
    );
  });

  test('a 503 is retried for a GET (attempts, 3 by default) and never for a POST', async () => {
    const unavailable = (res: ServerResponse) => res.writeHead(503).end();
    await against(unavailable, async (server) => {
      assert.equal((await refusal(client(server, { retry: { baseDelayMs: 100 } }).tags.get('tag_x'))).status, 503);
      assert.equal(server.arrivals.length, 3);
      assertWaitsAtLeast(server, [100, 200]);
    });
    await against(unavailable, async (server) => {
      assert.equal((await refusal(client(server, { retry: { baseDelayMs: 100 } }).verifications.verify('https://example.com/t'))).status, 503);
      assert.equal(server.arrivals.length, 1);
    });
    await against(unavailable, async (server) => {
      // maxRetries caps every cause: one retry, though attempts would allow two.
      assert.equal((await refusal(client(server, { retry: { baseDelayMs: 100, maxRetries: 1 } }).tags.get('tag_x'))).status, 503);
      assert.equal(server.arrivals.length, 2);
    });
  });

  test('retry options that would not bound the retries are refused', () => {
    for (const retry of [{ maxRetries: -1 }, { maxRetries: NaN }, { maxRetries: 1.5 }, { attempts: 0 }, { baseDelayMs: NaN }, { rateLimitWaitMs: -1 }])
      assert.throws(() => new Tapproof({ baseUrl: 'http://127.0.0.1:9', key: 'tp_sandbox_x', retry }), TypeError, JSON.stringify(retry));
  });
});
