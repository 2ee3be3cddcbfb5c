// @tapproof/sdk's timeout and signals, against a loopback server that never answers or
// makes the client wait: a timeout ends a call with code `timeout`, an abort with the
// signal's reason, neither is retried, and an aborted signal sends nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Tapproof, TapproofError } from '@tapproof/sdk';
import { against, client, tooMany } from './stand-in.js';

const silent = () => {};

/** What `work` was refused with, and after how many milliseconds. */
async function refused(work: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await work().then(
    () => assert.fail('not refused'),
    (e: unknown) => e,
  );
  return { error, ms: performance.now() - started };
}

function assertTimeout(error: unknown, ms: number) {
  assert.ok(error instanceof TapproofError, String(error));
  assert.deepEqual([error.status, error.code, error.title, error.detail], [0, 'timeout', 'Timeout', `no answer within ${ms} ms`]);
}

const isAbort = (error: unknown) => error instanceof DOMException && error.name === 'AbortError';

describe('@tapproof/sdk timeout and cancellation', () => {
  test('a server that never answers: a call with timeout 200 rejects with code timeout, sent once', async () => {
    await against(silent, async (server) => {
      const { error, ms } = await refused(() => client(server).tags.get('tag_x', { timeout: 200 }));
      assertTimeout(error, 200);
      assert.ok(ms >= 195 && ms < 1500, `${ms} ms`);
      assert.equal(server.arrivals.length, 1, 'a timed-out GET is not sent again');
    });
  });

  test("the client's timeout applies to every call; a call's own timeout overrides it", async () => {
    await against(silent, async (server) => {
      const tp = client(server, { timeout: 200 });
      const { error, ms } = await refused(() => tp.keys.list());
      assertTimeout(error, 200);
      assert.ok(ms < 1500, `${ms} ms`);
      const longer = await refused(() => tp.verifications.verify('https://example.com/t', {}, { timeout: 600 }));
      assertTimeout(longer.error, 600);
      assert.ok(longer.ms >= 595, `${longer.ms} ms`);
      // Every page of a list is a call of its own under the same options.
      assertTimeout((await refused(() => tp.tags.list({}, { timeout: 100 }).next())).error, 100);
      assert.equal(server.arrivals.length, 3);
    });
  });

  test('an answer whose body never ends is cut by the timeout too', async () => {
    await against(
      (res) => res.writeHead(200, { 'content-type': 'application/vnd.api+json' }).write('{"data":'),
      async (server) => assertTimeout((await refused(() => client(server, { timeout: 200 }).teams.current())).error, 200),
    );
  });

  test('the timeout holds when a fetch of your own ignores the signal', async () => {
    await against(silent, async (server) => {
      const deaf: typeof fetch = (input, init) => fetch(input, { ...init, signal: null });
      const { error, ms } = await refused(() => client(server, { fetch: deaf, timeout: 200 }).sessions.get('ses_x'));
      assertTimeout(error, 200);
      assert.ok(ms < 1500, `${ms} ms`);
    });
  });

  test("an abort mid-request rejects with the signal's reason and is not retried", async () => {
    await against(silent, async (server) => {
      const controller = new AbortController();
      const call = refused(() => client(server).tags.get('tag_x', { signal: controller.signal }));
      await server.arrived(1);
      controller.abort();
      const { error, ms } = await call;
      assert.ok(isAbort(error), String(error));
      assert.ok(ms < 1500, `${ms} ms`);

      const reason = new Error('shutting down');
      const second = new AbortController();
      const withReason = refused(() => client(server).webhooks.list({ signal: second.signal }));
      await server.arrived(2);
      second.abort(reason);
      assert.equal((await withReason).error, reason);
      assert.equal(server.arrivals.length, 2);
    });
  });

  test("the client's signal stops its calls", async () => {
    await against(silent, async (server) => {
      const controller = new AbortController();
      const tp = client(server, { signal: controller.signal });
      const call = refused(() => tp.verifications.stats());
      await server.arrived(1);
      controller.abort();
      assert.ok(isAbort((await call).error));
      assert.ok(isAbort((await refused(() => tp.keys.list())).error), 'nor does a later call go out');
      assert.equal(server.arrivals.length, 1);
    });
  });

  test('an abort during the wait before a retry (429, Retry-After: 60) rejects at once', async () => {
    await against(tooMany({ 'retry-after': '60' }), async (server) => {
      const controller = new AbortController();
      const call = refused(() => client(server).verifications.verify('https://example.com/t', {}, { signal: controller.signal }));
      await server.arrived(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const aborted = performance.now();
      controller.abort();
      const { error } = await call;
      assert.ok(isAbort(error), String(error));
      assert.ok(performance.now() - aborted < 100, 'the wait ended with the abort');
      assert.equal(server.arrivals.length, 1);
    });
  });

  test('an aborted signal sends no request at all', async () => {
    await against(silent, async (server) => {
      const reason = new Error('gave up');
      assert.equal(
        (await refused(() => client(server).tags.create([{ protocol: 'ntag_424_dna', url: 'https://example.com/a' }], { signal: AbortSignal.abort(reason) })))
          .error,
        reason,
      );
      assert.ok(isAbort((await refused(() => client(server, { signal: AbortSignal.abort() }).keys.get('key_x'))).error));
      assert.ok(isAbort((await refused(() => client(server).webhooks.deliveries('wh_x', {}, { signal: AbortSignal.abort() }).next())).error));
      assert.equal(server.arrivals.length, 0);
    });
  });

  test('a timeout that is not a positive number is refused', async () => {
    for (const timeout of [0, -1, NaN]) assert.throws(() => new Tapproof({ baseUrl: 'http://127.0.0.1:9', key: 'tp_sandbox_x', timeout }), TypeError);
    await assert.rejects(new Tapproof({ baseUrl: 'http://127.0.0.1:9', key: 'tp_sandbox_x' }).tags.get('tag_x', { timeout: 0 }), TypeError);
  });
});
