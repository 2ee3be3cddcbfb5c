// Scans are decided in the order the server received them (docs/throughput.md). Between
// receipt and the counter check a request may wait on the database (an expired
// API-key cache entry, a tag lookup that missed, the sandbox master) while later
// requests, served from memory, overtake it; a genuine tap at counter N decided
// after N+1 of the same tag would be judged a replay. So every scan takes a
// ticket when its request has been received, and hands its scan to the group
// commit only once every earlier ticket has either done so or ended without a
// scan (an error answer, a dropped connection). Nothing is waited for in the
// usual case, when earlier requests are already through.
//
// The ticket is taken on the request's headers, before anything that may wait
// (rate limit, negotiation, auth). A request whose body is not complete by the
// end of the event loop turn that read its headers gives its ticket up and takes
// a new one once its body is in (in the handler), so a slow client cannot hold
// everybody else's scans back.
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The arrival ticket of a route with `config.arrivalOrder`, while held. */
    arrival: number | null;
  }
  interface FastifyContextConfig {
    /** Decide this route's scans in arrival order (src/verifications/arrival-order.ts). */
    arrivalOrder?: boolean;
  }
}

export class ArrivalOrder {
  private next = 0;
  /** The lowest ticket not yet through. */
  private low = 0;
  private readonly through = new Set<number>();
  private readonly waiting = new Map<number, () => void>();

  take(): number {
    return this.next++;
  }

  /**
   * Null when every earlier ticket is through (go on at once, in this turn),
   * else a promise that resolves when they are. A ticket already passed (its
   * socket closed before its handler got here) has nothing left to wait for.
   */
  turn(ticket: number): Promise<void> | null {
    if (ticket <= this.low) return null;
    return new Promise((resolve) => this.waiting.set(ticket, resolve));
  }

  /** The ticket's scan is in the commit queue, or it will have none. Idempotent. */
  pass(ticket: number): void {
    if (ticket < this.low || this.through.has(ticket)) return;
    // The usual case, the lowest ticket passing, adds nothing to `through`: a long-lived Set that gains
    // and loses an entry per request leaves old-generation garbage (docs/throughput.md#memory).
    if (ticket === this.low) this.wake(this.low++);
    else this.through.add(ticket);
    // A ticket passed early by its closed socket may still have a waiter: every one low passes is woken.
    while (this.through.delete(this.low)) this.wake(this.low++);
    this.wake(this.low);
  }

  private wake(ticket: number): void {
    const wake = this.waiting.get(ticket);
    if (wake) {
      this.waiting.delete(ticket);
      wake();
    }
  }
}

/**
 * A root hook, installed before any other (rate limit, negotiation, auth may
 * wait): routes with `config.arrivalOrder` take their ticket on their headers.
 * The request's end, however it ends, passes the ticket.
 */
export function installArrivalOrder(app: FastifyInstance, order: ArrivalOrder): void {
  app.decorateRequest('arrival', null);
  app.addHook('onRequest', (request: FastifyRequest, reply, done) => {
    if (request.routeOptions.config?.arrivalOrder === true) {
      // Node's parser calls this hook on the request's headers, synchronously.
      const ticket = order.take();
      request.arrival = ticket;
      // Once this turn of the event loop has read what the socket held, a
      // body still incomplete gives its place up (a slow client must not hold
      // later scans back) and takes a new ticket when it is in (the handler).
      setImmediate(() => {
        if (request.raw.complete || request.arrival !== ticket) return;
        request.arrival = null;
        order.pass(ticket);
      });
      reply.raw.once('close', () => {
        if (request.arrival !== null) order.pass(request.arrival);
      });
    }
    done();
  });
}

/**
 * Runs `enqueue` (which must hand the scan to the group commit synchronously)
 * once every earlier arrival is through, then lets the next one go. In the usual
 * case, nothing earlier pending, it runs at once and its own result is returned,
 * with no promise of this function's around it; a throw is a rejection either way.
 */
export function inArrivalOrder<T>(order: ArrivalOrder, request: FastifyRequest, enqueue: () => T): T | Promise<T> {
  // A body that was not complete in the turn its headers came: received now.
  if (request.arrival === null) request.arrival = order.take();
  const ticket = request.arrival;
  const wait = order.turn(ticket);
  if (wait) return wait.then(() => enqueueThenPass(order, ticket, enqueue));
  try {
    return enqueueThenPass(order, ticket, enqueue);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

function enqueueThenPass<T>(order: ArrivalOrder, ticket: number, enqueue: () => T): T {
  try {
    return enqueue();
  } finally {
    order.pass(ticket);
  }
}

/** The request will hand no scan over (it failed before): let later arrivals go now rather than at its close. */
export function passArrival(order: ArrivalOrder, request: FastifyRequest): void {
  if (request.arrival !== null) order.pass(request.arrival);
}
