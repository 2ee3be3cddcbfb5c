// Arrival order (src/verifications/arrival-order.ts): tickets, turns and passes, and the request
// helpers on plain objects standing in for Fastify's requests, replies and app: no server is started.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ArrivalOrder, inArrivalOrder, installArrivalOrder, passArrival } from '../../src/verifications/arrival-order.js';

/** Lets every pending microtask and one turn of the event loop run. */
const oneTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Whether `wait` has settled once the microtasks and one turn of the event loop have run. */
async function settled(wait: Promise<unknown> | null): Promise<boolean> {
  if (wait === null) return true;
  let done = false;
  void wait.then(
    () => (done = true),
    () => (done = true),
  );
  await oneTurn();
  return done;
}

/** What inArrivalOrder and passArrival read of a request: its ticket. */
const requestWith = (arrival: number | null) => ({ arrival }) as FastifyRequest;

describe('ArrivalOrder tickets', () => {
  test('tickets are numbered from 0 in the order they are taken', () => {
    const order = new ArrivalOrder();
    assert.deepEqual([order.take(), order.take(), order.take()], [0, 1, 2]);
  });

  test('the lowest ticket goes at once; a later one waits until every earlier one has passed', async () => {
    const order = new ArrivalOrder();
    const [a, b, c] = [order.take(), order.take(), order.take()];
    assert.equal(order.turn(a), null);
    const waitB = order.turn(b);
    const waitC = order.turn(c);
    assert.ok(waitB && waitC);
    assert.deepEqual([await settled(waitB), await settled(waitC)], [false, false]);
    order.pass(a);
    assert.deepEqual([await settled(waitB), await settled(waitC)], [true, false]);
    order.pass(b);
    assert.equal(await settled(waitC), true);
  });

  test('a ticket passed out of order holds later ones until the earlier ones pass, then they all go', async () => {
    const order = new ArrivalOrder();
    const [a, b, c, d] = [order.take(), order.take(), order.take(), order.take()];
    const waitD = order.turn(d);
    order.pass(c);
    order.pass(b);
    assert.equal(await settled(waitD), false);
    order.pass(a);
    assert.equal(await settled(waitD), true);
    assert.equal(order.turn(d), null, 'd is the lowest ticket not through');
  });

  test('a ticket already passed has nothing to wait for once the earlier ones are through', () => {
    const order = new ArrivalOrder();
    const [a, b] = [order.take(), order.take()];
    order.pass(a);
    order.pass(b);
    assert.equal(order.turn(a), null);
    assert.equal(order.turn(b), null);
  });

  test('passing is idempotent: passing an early ticket twice does not let a later one skip its predecessor', async () => {
    const order = new ArrivalOrder();
    const [a, b, c] = [order.take(), order.take(), order.take()];
    order.pass(a);
    order.pass(a);
    const waitC = order.turn(c);
    assert.equal(await settled(waitC), false, 'b has not passed');
    order.pass(b);
    order.pass(b);
    assert.equal(await settled(waitC), true);
  });

  test('a ticket passed while it waits (its socket closed) is woken when the earlier ones pass', async () => {
    const order = new ArrivalOrder();
    const [a, b] = [order.take(), order.take()];
    const waitB = order.turn(b);
    order.pass(b);
    assert.equal(await settled(waitB), false);
    order.pass(a);
    assert.equal(await settled(waitB), true);
  });
});

describe('inArrivalOrder and passArrival', () => {
  test('with nothing earlier pending, enqueue runs in the same turn, before inArrivalOrder returns', async () => {
    const order = new ArrivalOrder();
    const request = requestWith(order.take());
    const log: string[] = [];
    const result = inArrivalOrder(order, request, () => {
      log.push('enqueued');
      return 'queued';
    });
    assert.deepEqual(log, ['enqueued']);
    assert.equal(await result, 'queued');
    assert.equal(order.turn(order.take()), null, 'its ticket passed');
  });

  test('handlers reaching the queue in reverse order still enqueue in arrival order', async () => {
    const order = new ArrivalOrder();
    const requests = [0, 1, 2, 3].map(() => requestWith(order.take()));
    const log: number[] = [];
    // A run with nothing earlier pending answers its value itself, the others a promise of it.
    const runs = [3, 2, 1, 0].map((i) =>
      Promise.resolve(
        inArrivalOrder(order, requests[i]!, () => {
          log.push(i);
          return i * 10;
        }),
      ),
    );
    assert.deepEqual(await Promise.all(runs), [30, 20, 10, 0]);
    assert.deepEqual(log, [0, 1, 2, 3]);
  });

  test('a later arrival whose handler is ready first waits for the earlier one, then goes right after it', async () => {
    const order = new ArrivalOrder();
    const early = requestWith(order.take());
    const late = requestWith(order.take());
    const log: string[] = [];
    const lateRun = inArrivalOrder(order, late, () => log.push('late'));
    await oneTurn();
    assert.equal(log.length, 0, 'the late scan waits while the early one is still being looked up');
    await inArrivalOrder(order, early, () => log.push('early'));
    await lateRun;
    assert.deepEqual(log, ['early', 'late']);
  });

  test('a request that fails before its scan (passArrival) releases the arrivals after it', async () => {
    const order = new ArrivalOrder();
    const failing = requestWith(order.take());
    const next = requestWith(order.take());
    const log: string[] = [];
    const nextRun = inArrivalOrder(order, next, () => log.push('next'));
    await oneTurn();
    assert.equal(log.length, 0);
    passArrival(order, failing);
    await nextRun;
    assert.deepEqual(log, ['next']);
  });

  test('passArrival of a request without a ticket passes nothing', async () => {
    const order = new ArrivalOrder();
    const first = requestWith(order.take());
    const second = requestWith(order.take());
    passArrival(order, requestWith(null));
    const run = Promise.resolve(inArrivalOrder(order, second, () => 'second'));
    assert.equal(await settled(run), false, 'the first ticket still holds it');
    passArrival(order, first);
    assert.equal(await run, 'second');
  });

  test('an enqueue that throws rejects its caller and still lets the next arrival go', async () => {
    const order = new ArrivalOrder();
    const [a, b] = [requestWith(order.take()), requestWith(order.take())];
    const log: string[] = [];
    const bRun = inArrivalOrder(order, b, () => log.push('b'));
    const refusal = new Error('queue refused');
    await assert.rejects(
      inArrivalOrder(order, a, () => {
        throw refusal;
      }),
      (error) => error === refusal,
    );
    await bRun;
    assert.deepEqual(log, ['b']);
  });

  test('a request whose ticket was given up (slow body) takes a new one: it goes after those that arrived meanwhile', async () => {
    const order = new ArrivalOrder();
    const slow = requestWith(order.take());
    // Its body was incomplete at the end of the turn: its place is given up.
    order.pass(slow.arrival!);
    slow.arrival = null;
    const meanwhile = requestWith(order.take());
    const log: string[] = [];
    const slowRun = inArrivalOrder(order, slow, () => log.push('slow'));
    assert.equal(slow.arrival, 2, 'a fresh ticket, after the one taken meanwhile');
    await oneTurn();
    assert.equal(log.length, 0);
    await inArrivalOrder(order, meanwhile, () => log.push('meanwhile'));
    await slowRun;
    assert.deepEqual(log, ['meanwhile', 'slow']);
  });
});

/** Fastify's app as installArrivalOrder uses it: a request decoration and one onRequest hook. */
function fakeApp() {
  const decorations: [string, unknown][] = [];
  let hook: ((request: FastifyRequest, reply: FastifyReply, done: () => void) => void) | undefined;
  const app = {
    decorateRequest: (name: string, value: unknown) => decorations.push([name, value]),
    addHook: (name: string, fn: typeof hook) => {
      assert.equal(name, 'onRequest');
      hook = fn;
    },
  } as unknown as FastifyInstance;
  return {
    app,
    decorations,
    /** Runs the hook on a request of a route with or without `arrivalOrder`; returns the request and its reply's socket. */
    arrive(arrivalOrder: boolean | undefined, complete: boolean) {
      const raw = new EventEmitter();
      const request = {
        arrival: null,
        routeOptions: { config: arrivalOrder === undefined ? {} : { arrivalOrder } },
        raw: { complete },
      } as unknown as FastifyRequest;
      let done = 0;
      hook!(request, { raw } as unknown as FastifyReply, () => done++);
      assert.equal(done, 1, 'the hook calls done once, synchronously');
      return { request, close: () => raw.emit('close') };
    },
  };
}

describe('installArrivalOrder', () => {
  test('decorates requests with a null arrival and takes tickets only on routes with config.arrivalOrder', () => {
    const order = new ArrivalOrder();
    const fake = fakeApp();
    installArrivalOrder(fake.app, order);
    assert.deepEqual(fake.decorations, [['arrival', null]]);
    assert.equal(fake.arrive(undefined, true).request.arrival, null);
    assert.equal(fake.arrive(false, true).request.arrival, null);
    assert.equal(fake.arrive(true, true).request.arrival, 0);
    assert.equal(fake.arrive(true, true).request.arrival, 1);
    assert.equal(order.take(), 2, 'routes without arrivalOrder took no ticket');
  });

  test('a body complete in the turn its headers came keeps its ticket; an incomplete one gives it up', async () => {
    const order = new ArrivalOrder();
    const fake = fakeApp();
    installArrivalOrder(fake.app, order);
    const complete = fake.arrive(true, true);
    const slow = fake.arrive(true, false);
    const after = order.take();
    await oneTurn();
    assert.deepEqual([complete.request.arrival, slow.request.arrival], [0, null]);
    const wait = order.turn(after);
    assert.equal(await settled(wait), false, 'the complete request still holds its place');
    passArrival(order, complete.request);
    assert.equal(await settled(wait), true, 'the slow request’s place was already given up');
  });

  test('a reply that closes while its request holds a ticket passes it', async () => {
    const order = new ArrivalOrder();
    const fake = fakeApp();
    installArrivalOrder(fake.app, order);
    const dropped = fake.arrive(true, true);
    const after = order.take();
    const wait = order.turn(after);
    assert.equal(await settled(wait), false);
    dropped.close();
    assert.equal(await settled(wait), true);
  });

  test('a reply closing after its slow body took a new ticket in the handler passes the new ticket', async () => {
    const order = new ArrivalOrder();
    const fake = fakeApp();
    installArrivalOrder(fake.app, order);
    const slow = fake.arrive(true, false);
    await oneTurn();
    assert.equal(slow.request.arrival, null);
    const meanwhile = order.take();
    slow.request.arrival = order.take(); // what inArrivalOrder does once the body is in
    const last = order.take();
    const wait = order.turn(last);
    order.pass(meanwhile);
    assert.equal(await settled(wait), false);
    slow.close();
    assert.equal(await settled(wait), true);
  });
});
