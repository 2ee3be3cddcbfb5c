// A real HTTP endpoint on loopback that records what webhooks deliver.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AppContext } from '../../src/context.js';
import { DeliveryWorker } from '../../src/webhooks/worker.js';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  status: number;
}

export interface Receiver {
  url(path: string): string;
  received: Received[];
  on(path: string): Received[];
  /** Resolves when `predicate` holds over what arrived (polls; fails after `ms`). */
  until(predicate: (received: Received[]) => boolean, ms?: number): Promise<void>;
  /** Answers with the returned status (default 200); may delay. */
  respond: (path: string, nth: number) => number | Promise<number>;
  /** The body of the answer (default none). */
  answer: (path: string, nth: number) => Buffer | string | undefined;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const counts = new Map<string, number>();
  const receiver: Receiver = {
    received,
    url: (path) => `http://127.0.0.1:${(server.address() as { port: number }).port}${path}`,
    on: (path) => received.filter((r) => r.path === path),
    respond: () => 200,
    answer: () => undefined,
    async until(predicate, ms = 60_000) {
      const deadline = Date.now() + ms;
      while (!predicate(received)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met within ${ms} ms (${received.length} received)`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on(
      'end',
      () =>
        void (async () => {
          const path = req.url ?? '/';
          const nth = (counts.get(path) ?? 0) + 1;
          counts.set(path, nth);
          const status = await receiver.respond(path, nth);
          received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
          // A redirect points somewhere the sender must not follow.
          res.writeHead(status, status >= 300 && status < 400 ? { location: '/followed' } : {}).end(receiver.answer(path, nth));
        })(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return receiver;
}

/** Standard Webhooks verification, written independently of the code under test. */
export function verify(secret: string, r: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${String(r.headers['webhook-id'])}.${String(r.headers['webhook-timestamp'])}.${r.body}`)
    .digest('base64');
  return String(r.headers['webhook-signature']).split(' ').includes(`v1,${expected}`);
}

/** Webhooks to loopback over http, retried at once: the server env for tests that receive deliveries. */
export const FAST_WEBHOOKS = {
  TAPPROOF_ALLOW_PRIVATE_WEBHOOKS: '1',
  TAPPROOF_ALLOW_HTTP_WEBHOOKS: '1',
  TAPPROOF_WEBHOOK_RETRY_SCALE: '0.00001',
  TAPPROOF_WEBHOOK_TIMEOUT_MS: '3000',
};

/** A receiver and a running delivery worker of `ctx`; `stop` ends both. */
export async function startDelivery(ctx: AppContext): Promise<{ receiver: Receiver; worker: DeliveryWorker; stop: () => Promise<void> }> {
  const receiver = await startReceiver();
  const worker = new DeliveryWorker(ctx, { idleMs: 20 });
  worker.start();
  return {
    receiver,
    worker,
    stop: async () => {
      await worker.stop();
      await receiver.close();
    },
  };
}
