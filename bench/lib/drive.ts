// A fixed number of requests through autocannon, each one request's own pieces (body, path).
import autocannon from 'autocannon';
import { refuseFailures } from './load.js';

/**
 * One request per entry of `pieces`, over `connections` connections; autocannon's result, and the seconds from its
 * start to the last response (its own end waits for its next 1 s tick: 20,000 requests answered in 3.4 s would
 * read 6,667/s).
 */
export async function drive(url: string, connections: number, request: Record<string, unknown>, pieces: Record<string, string>[]) {
  let next = 0;
  const started = performance.now();
  let lastResponse = started;
  const result = await autocannon({
    url,
    connections,
    amount: pieces.length,
    requests: [
      {
        ...request,
        setupRequest: (req: any) => ({ ...req, ...pieces[next++ % pieces.length] }),
        onResponse: () => {
          lastResponse = performance.now();
        },
      },
    ],
  } as any);
  refuseFailures(result, `${typeof request.method === 'string' ? request.method : 'GET'} ${url}`);
  return Object.assign(result, { seconds: (lastResponse - started) / 1000 });
}
