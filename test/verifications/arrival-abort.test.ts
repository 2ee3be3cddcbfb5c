// A scan whose client hangs up while it waits for its turn is not left waiting forever: its
// place is released, and the handler still runs to its end once the earlier arrivals are through.
// On the order itself (released places, in any pattern), then through the real server: requests
// with well-formed unknown keys (each waits for the database) ahead of genuine scans whose
// connections drop a few milliseconds after their handlers start; every handler that started
// ends (counted on Fastify's `fastify.request.handler` diagnostics channel).
import assert from 'node:assert/strict';
import { tracingChannel } from 'node:diagnostics_channel';
import { connect, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { newKeyText } from '../../src/keys/key-text.js';
import { ArrivalOrder } from '../../src/verifications/arrival-order.js';
import { DATABASES, JSON_API, call, sharedServer } from '../kit/harness.js';
import { emulated, tapUrl } from './helpers.js';

/** Whether `wait` has settled once the microtasks and one turn of the event loop have run. */
async function settled(wait: Promise<void> | null): Promise<boolean> {
  if (wait === null) return true;
  let done = false;
  void wait.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('arrival order with released places', () => {
  test('a waiter whose place was released while it waited is woken when the earlier ones pass', async () => {
    const order = new ArrivalOrder();
    const [first, second, third] = [order.take(), order.take(), order.take()];
    const waitSecond = order.turn(second);
    const waitThird = order.turn(third);
    order.pass(second); // its socket closed while it waited
    assert.equal(await settled(waitSecond), false);
    order.pass(first);
    assert.equal(await settled(waitSecond), true);
    assert.equal(await settled(waitThird), true);
  });

  test('a run of released places, each with a waiter, wakes every one of them', async () => {
    const order = new ArrivalOrder();
    const tickets = Array.from({ length: 6 }, () => order.take());
    const waits = tickets.slice(1).map((t) => order.turn(t));
    for (const t of [4, 2, 3, 1]) order.pass(tickets[t]!);
    order.pass(tickets[0]!);
    for (const [i, wait] of waits.entries()) assert.equal(await settled(wait), true, `ticket ${i + 1}`);
  });

  test('in-order passes let each next ticket go at once; a waiter behind an early pass waits for the lowest', async () => {
    const order = new ArrivalOrder();
    for (let i = 0; i < 3; i++) {
      const ticket = order.take();
      assert.equal(order.turn(ticket), null, `ticket ${ticket}`);
      order.pass(ticket);
    }
    const [low, middle, high] = [order.take(), order.take(), order.take()];
    const waitHigh = order.turn(high);
    order.pass(middle);
    assert.equal(await settled(waitHigh), false);
    order.pass(low);
    assert.equal(await settled(waitHigh), true);
    order.pass(high);
    order.pass(high);
    assert.equal(order.turn(order.take()), null);
  });

  test('a place released before its turn is asked for goes on at once', async () => {
    const order = new ArrivalOrder();
    const [first, second] = [order.take(), order.take()];
    order.pass(second);
    order.pass(first);
    assert.equal(await settled(order.turn(second)), true);
    assert.equal(order.turn(order.take()), null);
  });
});

const document = (url: string) => JSON.stringify({ data: { type: 'verifications', attributes: { url } } });
/** A scan on a raw connection; `hangUp` marks it as one whose connection the test drops once its handler runs. */
const request = (key: string, body: string, hangUp: boolean) =>
  `POST /api/v1/verifications HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: ${JSON_API}\r\n${hangUp ? 'X-Test-Hang-Up: 1\r\n' : ''}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** Starts and ends of POST /api/v1/verifications handlers, from Fastify's diagnostics channel. */
function handlerCount(hangUp: (socket: Socket) => void) {
  const channel = tracingChannel<unknown, { request?: { routeOptions?: { url?: string }; method?: string } }>('fastify.request.handler');
  const count = { started: 0, ended: 0 };
  const scan = (store: { request?: { routeOptions?: { url?: string }; method?: string } }) =>
    store.request?.method === 'POST' && store.request.routeOptions?.url === '/api/v1/verifications';
  const handlers = {
    start: (store: any) => {
      if (!scan(store)) return;
      count.started++;
      // Only the marked scans: a marked scan whose handler never starts must not make the test drop a later request.
      if (store.request.headers['x-test-hang-up'] === '1') hangUp(store.request.raw.socket);
    },
    asyncEnd: (store: any) => void (scan(store) && count.ended++),
  };
  channel.subscribe(handlers as any);
  return { count, stop: () => channel.unsubscribe(handlers as any) };
}

for (const kind of DATABASES) {
  describe(`scans whose client hangs up while waiting for their turn (${kind})`, () => {
    const suite = sharedServer(kind);

    test('12 unknown keys in flight, genuine scans with connections dropped 2–6 ms after their handlers start: every handler ends, later scans are decided', async () => {
      const { server, world } = suite;
      const tags = await Promise.all(Array.from({ length: 12 }, () => emulated(server, world.teamId, 'ntag_424_dna')));
      const urls = await Promise.all(tags.map((t) => tapUrl(server, t.id)));
      const origin = new URL(server.origin);
      // Each genuine scan's connection drops 2–6 ms after its handler started (it may be waiting for its turn then).
      let dropped = 0;
      const { count, stop } = handlerCount((socket) => void setTimeout(() => socket.destroy(), 2 + (dropped++ % 5)));
      try {
        const open = (key: string, url: string, hangUp: boolean) => {
          const socket = connect(Number(origin.port), origin.hostname);
          socket.on('error', () => {});
          socket.write(request(key, document(url), hangUp));
          return socket;
        };
        const unknown = urls.map((url) => open(newKeyText('sandbox'), url, false));
        const genuine = urls.map((url) => open(world.sandbox.key, url, true));
        const sockets = [...unknown, ...genuine];
        // The unknown keys are answered (401) once their lookups end; the genuine sockets are gone by then.
        await Promise.all(unknown.map((s) => new Promise((resolve) => s.once('data', resolve).once('close', resolve))));
        for (const s of sockets) s.destroy();
        const later = await call(server, 'POST', '/verifications', { key: world.sandbox.key, body: JSON.parse(document(await tapUrl(server, tags[0]!.id))) });
        assert.equal(later.status, 201);
        // The handlers woken last end a few turns after the later scan's; a stop rather than a timing.
        for (let i = 0; i < 500 && count.ended < count.started; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        assert.equal(count.ended, count.started, `handlers started: ${count.started}, ended: ${count.ended}`);
        assert.ok(count.started >= 1);
      } finally {
        stop();
      }
    });
  });
}
