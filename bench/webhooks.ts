// Webhook delivery benchmark: deliveries per second to a local
// receiver with `tapproof worker` processes draining a backlog (SQLite; PostgreSQL
// with one and two workers), the latency from a tag change to the receiver
// (p50/p99) with an idle worker, and the worker's peak RSS for two backlog sizes
// (it must not grow with the backlog: the worker claims bounded batches).
//
//   npx tsx bench/webhooks.ts [--db sqlite|postgres|both] [--backlog 20000] [--heap-cap 64]
//
// The receiver runs in its own process; workers are real `tapproof worker`
// processes. Writes the Markdown report to bench/RESULTS-webhooks.md.
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../src/config.js';
import { migrate } from '../src/db/migrations.js';
import type { Db } from '../src/db/database.js';
import { createTeam } from '../src/teams/service.js';
import { createTags } from '../src/tags/service.js';
import { createContext } from '../src/context.js';
import { createWebhook } from '../src/webhooks/service.js';
import { arg, databaseKinds } from './lib/args.js';
import { machineLines, verdict } from './lib/machine.js';
import { RssSampler } from './lib/rss.js';
import { freshStorage, type DatabaseKind, type Storage } from './lib/storage.js';
import { describeLaunch, spawnTapproof, stopAll, type Launch } from './lib/tapproof.js';
import { systemClock } from '../src/time.js';
import { cliActor } from '../src/audit/record.js';

const which = arg('db', 'both');
const kinds = databaseKinds();
const BACKLOG = Number(arg('backlog', '20000'));
// The memory runs cap the worker's V8 heap: a worker that held the backlog would die, not just grow.
const HEAP_CAP_MIB = Number(arg('heap-cap', '64'));
const LAUNCH: Launch = { tsx: true };

// ---------------------------------------------------------------- receiver (own process)
const RECEIVER = `
const http = require('node:http');
let ids = new Set(), first = 0, last = 0, latencies = [];
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const now = performance.timeOrigin + performance.now();
    const id = req.headers['webhook-id'];
    if (!ids.has(id)) {
      ids.add(id);
      if (!first) first = now;
      last = now;
      const ts = JSON.parse(Buffer.concat(chunks).toString()).timestamp; // ...SS.ffffffZ
      const micros = Date.parse(ts.slice(0, 19) + 'Z') * 1000 + Number(ts.slice(20, 26));
      latencies.push(now - micros / 1000);
    }
    res.writeHead(200).end();
  });
});
server.keepAliveTimeout = 30000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'reset') { ids = new Set(); first = last = 0; latencies = []; process.send({ ok: true }); }
  if (m === 'stats') process.send({ count: ids.size, first, last, latencies: m === 'stats' ? latencies : [] });
});
`;

interface Stats {
  count: number;
  first: number;
  last: number;
  latencies: number[];
}

class Receiver {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}
  static async start(): Promise<Receiver> {
    const child = fork('-e', [RECEIVER], { execArgv: ['-e', RECEIVER], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const { port } = await new Promise<{ port: number }>((resolve) => child.once('message', (m) => resolve(m as { port: number })));
    return new Receiver(child, port);
  }
  private ask<T>(message: string): Promise<T> {
    return new Promise((resolve) => {
      this.child.once('message', (m) => resolve(m as T));
      this.child.send(message);
    });
  }
  reset = () => this.ask<unknown>('reset');
  stats = () => this.ask<Stats>('stats');
  async until(count: number, timeoutMs: number): Promise<Stats> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = await this.stats();
      if (s.count >= count) return s;
      if (Date.now() > deadline) throw new Error(`receiver got ${s.count}/${count} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  stop() {
    this.child.kill();
  }
}

// ---------------------------------------------------------------- workers (real processes)
function startWorker(storage: Storage, heapCapMiB?: number): ChildProcess {
  const launch = { ...LAUNCH, nodeArgs: heapCapMiB ? [`--max-old-space-size=${heapCapMiB}`] : [] };
  return spawnTapproof(launch, ['worker'], { ...storage.env, LOG_LEVEL: 'warn', TAPPROOF_ALLOW_PRIVATE_WEBHOOKS: '1', TAPPROOF_ALLOW_HTTP_WEBHOOKS: '1' });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

// ---------------------------------------------------------------- scenarios
interface Setup {
  storage: Storage;
  db: Db;
  world: { teamId: string; mode: 'sandbox' };
}

async function setup(kind: DatabaseKind, receiver: Receiver): Promise<Setup> {
  const storage = await freshStorage(kind);
  const db = storage.open();
  await migrate(db);
  const { id: teamId } = await createTeam(db.kysely, 'bench', null, systemClock);
  const world = { teamId, mode: 'sandbox' as const };
  const config = { ...loadConfig({ ...storage.env, TAPPROOF_ALLOW_PRIVATE_WEBHOOKS: '1', TAPPROOF_ALLOW_HTTP_WEBHOOKS: '1' }), database: storage.target };
  await createWebhook(createContext(db, config), { ...world, actor: cliActor() }, { url: `http://127.0.0.1:${receiver.port}/hook` });
  return { storage, db, world };
}

let serial = 0;
async function backlog(s: Setup, count: number): Promise<number> {
  const started = performance.now();
  for (let done = 0; done < count; done += 500) {
    const n = Math.min(500, count - done);
    await createTags(
      { db: s.db, clock: systemClock },
      { ...s.world, actor: cliActor() },
      Array.from({ length: n }, () => ({ protocol: 'ntag_424_dna', url: `https://bench.example/${++serial}` })),
    );
  }
  return performance.now() - started;
}

interface DrainResult {
  kind: DatabaseKind;
  workers: number;
  backlog: number;
  rate: number;
  peakRssMiB: number;
  heapCapMiB?: number;
}

async function drain(kind: DatabaseKind, workers: number, count: number, receiver: Receiver, heapCapMiB?: number): Promise<DrainResult> {
  await receiver.reset();
  const s = await setup(kind, receiver);
  try {
    await backlog(s, count);
    const children = Array.from({ length: workers }, () => startWorker(s.storage, heapCapMiB));
    children.forEach((c) => c.once('exit', (code) => code && console.error(`worker exited with ${code}`)));
    const rss = new RssSampler(
      children.map((c) => c.pid!),
      100,
    );
    const stats = await receiver.until(count, 600_000);
    rss.stop();
    await stopAll(children);
    const rate = (stats.count - 1) / ((stats.last - stats.first) / 1000);
    const result = { kind, workers, backlog: count, rate, peakRssMiB: rss.overall, heapCapMiB };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await s.db.close();
    await s.storage.drop();
  }
}

interface LatencyResult {
  kind: DatabaseKind;
  changes: number;
  p50: number;
  p99: number;
  max: number;
}

async function latency(kind: DatabaseKind, receiver: Receiver, changes = 1000, perSecond = 100): Promise<LatencyResult> {
  await receiver.reset();
  const s = await setup(kind, receiver);
  const child = startWorker(s.storage);
  try {
    // Warm: the worker is up and idle once the first event has gone through.
    await backlog(s, 1);
    await receiver.until(1, 60_000);
    await receiver.reset();
    const started = performance.now();
    for (let i = 0; i < changes; i++) {
      await backlog(s, 1);
      const wait = started + ((i + 1) * 1000) / perSecond - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    const stats = await receiver.until(changes, 60_000);
    const sorted = stats.latencies.sort((a, b) => a - b);
    const result = { kind, changes, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await stopAll([child]);
    await s.db.close();
    await s.storage.drop();
  }
}

// ---------------------------------------------------------------- main
const receiver = await Receiver.start();
const drains: DrainResult[] = [];
const latencies: LatencyResult[] = [];
try {
  for (const kind of kinds) {
    drains.push(await drain(kind, 1, BACKLOG, receiver));
    if (kind === 'postgres') drains.push(await drain(kind, 2, BACKLOG, receiver));
    latencies.push(await latency(kind, receiver));
  }
  // Memory against backlog size: one worker with a capped heap, the backlog and five times it.
  const memoryKind = kinds[0];
  drains.push(await drain(memoryKind, 1, BACKLOG, receiver, HEAP_CAP_MIB));
  drains.push(await drain(memoryKind, 1, BACKLOG * 5, receiver, HEAP_CAP_MIB));
} finally {
  receiver.stop();
}

const f = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const capped = drains.filter((d) => d.heapCapMiB);
const [small, large] = [capped[0], capped[1]];
const growth = small && large ? (large.peakRssMiB - small.peakRssMiB) / small.peakRssMiB : 0;
const targets = [
  ...drains
    .filter((d) => d.workers === 1 && !d.heapCapMiB)
    .map((d) => `- ${d.kind}, one worker: ≥ 1,000 deliveries/s: ${f(d.rate)}/s — ${verdict(d.rate, 1000, 'higher', '/s')}`),
  ...latencies.map(
    (l) => `- ${l.kind}: p50 tag change → receiver ≤ 200 ms: ${f(l.p50, 1)} ms — ${verdict(l.p50, 200, 'lower', ' ms')} (p99 ${f(l.p99, 1)} ms)`,
  ),
  small && large
    ? `- no memory growth with the backlog (criterion: the worker with its V8 heap capped at ${HEAP_CAP_MIB} MiB drains ${f(large.backlog)} as it drains ${f(small.backlog)}, and its peak RSS grows by ≤ 25%): ${f(small.peakRssMiB)} → ${f(large.peakRssMiB)} MiB, ${(growth * 100).toFixed(0)}% — ${growth <= 0.25 ? 'met' : '**missed**'}`
    : '',
];
const report = `# Webhook delivery benchmark

${machineLines().join('\n')}
- \`npx tsx bench/webhooks.ts --db ${which} --backlog ${BACKLOG}\`. Receiver: a plain Node HTTP server in its own process on 127.0.0.1 answering 200. Workers: \`${describeLaunch(LAUNCH)} worker\` processes
  (batch 200, up to 256 requests in flight, keep-alive). The backlog is written first (one \`tag.created\` per tag, one webhook),
  then the workers start; the rate is unique deliveries between the first and the last arrival. Receiver, workers,
  database and bench share the cores.

## Throughput (backlog drained)

| Database | Workers | Backlog | Worker heap cap | Deliveries/s | Peak worker RSS |
|---|---|---|---|---|---|
${drains.map((d) => `| ${d.kind} | ${d.workers} | ${f(d.backlog)} | ${d.heapCapMiB ? `${d.heapCapMiB} MiB` : 'default'} | ${f(d.rate)} | ${f(d.peakRssMiB)} MiB |`).join('\n')}

## Latency from tag change to receiver (idle worker, ${latencies[0]?.changes ?? 0} single-tag changes at 100/s)

| Database | p50 | p99 | max |
|---|---|---|---|
${latencies.map((l) => `| ${l.kind} | ${f(l.p50, 1)} ms | ${f(l.p99, 1)} ms | ${f(l.max, 1)} ms |`).join('\n')}

## Targets

${targets.filter(Boolean).join('\n')}
`;
writeFileSync(new URL('./RESULTS-webhooks.md', import.meta.url), report);
console.log(report);
