// Chips written per minute through the emulator over HTTP, against the REAL server (a
// child process), SQLite and PostgreSQL. Each write is the whole relay: tag created by the API,
// then start + 3 round trips of APDUs onto a software card in this process. The server's share of a
// write is the time spent waiting for HTTP answers (the card's work is measured apart).
// Target (benchmark, not test): ≥ 600 chips/min on a 2-core machine; server share ≤ 15 ms.
//
//   npx tsx bench/writer.ts [--db sqlite|postgres|both] [--seconds 10] [--concurrency 4]
//
// Writes bench/RESULTS-writer.md.
import { loadavg } from 'node:os';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Ntag424Card } from '../src/chips/index.js';
import { HttpTransport, WriterClient } from '../src/writer/relay.js';
import { arg, databaseKinds } from './lib/args.js';
import { machineLines, verdict } from './lib/machine.js';
import { startServer } from './lib/server.js';
import { freshStorage, type DatabaseKind } from './lib/storage.js';
import { ROOT, runCli, type Launch } from './lib/tapproof.js';

const SECONDS = Number(arg('seconds', '10'));
const CONCURRENCY = Number(arg('concurrency', '4'));
const launch: Launch = { tsx: true };

async function benchOne(kind: DatabaseKind): Promise<string[]> {
  const storage = await freshStorage(kind);
  const server = await startServer(launch, storage.env);
  try {
    const team = runCli(launch, storage.env, ['teams', 'create', '--name', 'bench']);
    const key = runCli(launch, storage.env, ['keys', 'create', '--team', team.id, '--mode', 'sandbox']).key as string;
    let serverMs = 0;
    let cardMs = 0;
    let roundTrips = 0;
    let written = 0;
    let failed = 0;
    // The HTTP transport, timed: everything between sending a request and reading its answer.
    const http = new HttpTransport(server.base, key);
    const timed = {
      post: async (path: string, body: unknown) => {
        const t = performance.now();
        try {
          return await http.post(path, body);
        } finally {
          serverMs += performance.now() - t;
        }
      },
    };
    const client = new WriterClient(timed);
    const end = performance.now() + SECONDS * 1000;
    const worker = async (w: number) => {
      for (let i = 0; performance.now() < end; i++) {
        const created = await http.post('/tags', {
          data: [{ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: `https://bench.example/${w}/${i}` } }],
        });
        const card = new Ntag424Card();
        const out = await client.write(created.body.data[0].id, {
          transmit: async (apdu) => {
            const t = performance.now();
            const r = Buffer.from(card.transmit(apdu));
            cardMs += performance.now() - t;
            return r;
          },
        });
        roundTrips += out.roundTrips;
        if (out.status === 'configured') written++;
        else failed++;
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
    const elapsed = (performance.now() - t0) / 1000;
    const perMinute = (written / elapsed) * 60;
    const share = serverMs / Math.max(1, written + failed) / CONCURRENCY;
    return [
      `### ${kind}`,
      '',
      `- ${written} chips written (${failed} failed) in ${elapsed.toFixed(1)} s at concurrency ${CONCURRENCY}: **${perMinute.toFixed(0)} chips/min** — ${verdict(perMinute, 600, 'higher', ' chips/min')}`,
      `- round trips per write: ${(roundTrips / Math.max(1, written + failed)).toFixed(2)} (APDU batches relayed; each write is one HTTP request more)`,
      `- server's share per write (HTTP wait ÷ concurrency): ${share.toFixed(1)} ms — ${verdict(share, 15, 'lower', ' ms')}`,
      `- software card time per write: ${(cardMs / Math.max(1, written + failed)).toFixed(2)} ms`,
      `- load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
      '',
    ];
  } finally {
    // stop(), not only the child: the server's RSS sampler is an interval that would keep this process alive.
    await server.stop();
    await storage.drop();
  }
}

const lines = [
  '# Writer benchmark (bench/writer.ts)',
  '',
  ...machineLines(),
  '',
  `load average before: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
  '',
];
for (const kind of databaseKinds()) lines.push(...(await benchOne(kind)));
writeFileSync(join(ROOT, 'bench/RESULTS-writer.md'), lines.join('\n') + '\n');
process.stdout.write(lines.join('\n') + '\n');
