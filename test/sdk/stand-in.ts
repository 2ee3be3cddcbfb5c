// A loopback HTTP server that misbehaves as a test tells it to (a flood of 429s, an answer
// that never comes) and records every request it gets, so that a test counts what was sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Tapproof, type TapproofOptions } from '@tapproof/sdk';

export interface Arrival {
  method: string;
  path: string;
  body: string;
  /** performance.now() when the request had fully arrived. */
  at: number;
}

export interface StandIn {
  origin: string;
  arrivals: Arrival[];
  /** Resolves once `n` requests have arrived. */
  arrived(n: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a server whose `answer` may answer, answer half, or never answer. */
export async function startStandIn(answer: (res: http.ServerResponse, arrival: Arrival) => void): Promise<StandIn> {
  const arrivals: Arrival[] = [];
  const waiting: { n: number; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const arrival = { method: req.method!, path: req.url!, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() };
      arrivals.push(arrival);
      for (const w of waiting.filter((w) => arrivals.length >= w.n)) w.resolve();
      answer(res, arrival);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    arrived: (n) => (arrivals.length >= n ? Promise.resolve() : new Promise((resolve) => waiting.push({ n, resolve }))),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs `run` against a fresh stand-in, closed afterwards whatever happens. */
export async function against(answer: Parameters<typeof startStandIn>[0], run: (server: StandIn) => Promise<void>): Promise<void> {
  const server = await startStandIn(answer);
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

export const client = (server: StandIn, options: Partial<TapproofOptions> = {}) =>
  new Tapproof({ baseUrl: server.origin, key: 'tp_sandbox_stand_in', ...options });

/** A 429 as a server or a proxy may send it, with the given headers. */
export const tooMany = (headers: Record<string, string>) => (res: http.ServerResponse) =>
  res.writeHead(429, { 'content-type': 'text/plain', ...headers }).end('Too Many Requests');

/** The gaps between consecutive arrivals, in milliseconds. */
export const gaps = (arrivals: Arrival[]) => arrivals.slice(1).map((a, i) => a.at - arrivals[i]!.at);
