// A fixed number of requests through autocannon, each one request's own pieces (body, path).
import autocannon from 'autocannon';
import { refuseFailures } from './load.js';

/**
 * Warm-up on the measuring connections: the first `requests` answers are the warm-up, and `onWarm` runs when the
 * last of them arrives (take the measured window's starting snapshots there). What comes back then describes the
 * requests after it only: their count, their seconds and their latencies.
 */
export interface WarmUp {
  requests: number;
  onWarm: () => void;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * One request per entry of `pieces`, over `connections` connections; autocannon's result, and the seconds from its
 * start to the last response (its own end waits for its next 1 s tick: 20,000 requests answered in 3.4 s would
 * read 6,667/s). With `warmUp`, `measured` counts the requests after it, `seconds` is their window and
 * `latency.p50`/`p99` are theirs.
 */
export async function drive(url: string, connections: number, request: Record<string, unknown>, pieces: Record<string, string>[], warmUp?: WarmUp) {
  let next = 0;
  let started = performance.now();
  let lastResponse = started;
  let answered = 0;
  const warm = warmUp?.requests ?? 0;
  const latencies = new Float64Array(Math.max(0, pieces.length - warm));
  const instance = autocannon({
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
  } as any) as unknown as autocannon.Instance & PromiseLike<autocannon.Result>;
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    answered++;
    if (answered === warm) {
      warmUp!.onWarm();
      started = performance.now();
    } else if (answered > warm && answered - warm <= latencies.length) latencies[answered - warm - 1] = responseTime;
  });
  const result = await instance;
  refuseFailures(result, `${typeof request.method === 'string' ? request.method : 'GET'} ${url}`);
  if (warmUp !== undefined) {
    const measured = latencies.subarray(0, Math.max(0, answered - warm)).sort();
    result.latency.p50 = percentile(measured, 50);
    result.latency.p99 = percentile(measured, 99);
  }
  return Object.assign(result, { seconds: (lastResponse - started) / 1000, measured: answered - warm });
}
