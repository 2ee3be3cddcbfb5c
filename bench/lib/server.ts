// The real `tapproof serve` on a free loopback port, for load generators.
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { RssSampler } from './rss.js';
import { spawnTapproof, stopAll, type Launch } from './tapproof.js';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface BenchServer {
  child: ChildProcess;
  origin: string;
  /** origin + /api/v1 */
  base: string;
  /** The server process's RSS, sampled every 50 ms. */
  rss: RssSampler;
  stop(): Promise<void>;
}

/** Waits until `url` answers with a status `ready` accepts (every 50 ms, for at most a minute), or the child exits. */
export async function answering(child: ChildProcess, url: string, ready: (status: number) => boolean): Promise<void> {
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
    try {
      if (ready((await fetch(url)).status)) return;
    } catch {
      /* not listening yet */
    }
    if (i > 1200) throw new Error(`${url}: no answer after a minute`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts the server (LOG_LEVEL=warn, rate limit raised) and waits until /healthz answers. */
export async function startServer(launch: Launch, env: Record<string, string>, serveArgs: string[] = []): Promise<BenchServer> {
  const port = await freePort();
  const child = spawnTapproof(launch, ['serve', ...serveArgs], {
    ...env,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    TAPPROOF_RATE_LIMIT: '100000000',
  });
  const origin = `http://127.0.0.1:${port}`;
  await answering(child, `${origin}/healthz`, (status) => status === 200);
  const rss = new RssSampler([child.pid!]);
  return {
    child,
    origin,
    base: `${origin}/api/v1`,
    rss,
    stop: async () => {
      rss.stop();
      await stopAll([child]);
    },
  };
}
