// Scan verification benchmark: fresh genuine POST /verifications
// per second through the REAL server (child processes on loopback), 50
// connections, 200 imported NTAG 424 DNA chips (keys known to the bench, so
// that every request is a fresh tap generated beforehand), as a ratio to the
// same server's /healthz measured in the same run. SQLite and PostgreSQL.
//
//   npx tsx bench/verifications.ts [--db sqlite|postgres|both] [--processes 1] [--requests 40000] [--chips 200] [--tsx] [--no-thread] [--client-ip] [--peer DIR]
//
// The machine is shared: every number is printed with the load average next to
// it, and the ratio (same server, same minute) is the figure to compare.
// Writes bench/RESULTS-verifications.md.
import { load as loadChecked } from './lib/load.js';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { generateSun424 } from '../src/chips/index.js';
import type { AppContext } from '../src/context.js';
import { arg, databaseKinds, flag } from './lib/args.js';
import { machineLines } from './lib/machine.js';
import { busiestThreads, cpuSeconds, processTree, threadSeconds } from './lib/cpu.js';
import { drive, type WarmUp } from './lib/drive.js';
import { rssMiB } from './lib/rss.js';
import { startPeer, type Peer } from './lib/peer.js';
import { startServer } from './lib/server.js';
import { POSTGRES_URL, freshStorage, type DatabaseKind as Kind } from './lib/storage.js';
import { ROOT, describeLaunch, type Launch } from './lib/tapproof.js';
import { freshTaps, prepareTeam } from './lib/taps.js';

const JSON_API = 'application/vnd.api+json';

const KINDS = databaseKinds();
const CONNECTIONS = Number(arg('connections', '50'));
const REQUESTS = Number(arg('requests', '40000'));
const WARMUP_REQUESTS = Number(arg('warmup', '5000'));
const CHIPS = Number(arg('chips', '200'));
const PROCESSES = Number(arg('processes', '1'));
const CEILING_SECONDS = Number(arg('ceiling-duration', '4'));
// The built server (dist/, as deployed) unless --tsx: from the sources every thread also carries tsx.
// BENCH_PROFILE=DIR writes the server's CPU profiles (one per thread) there; BENCH_NODE_ARGS adds node flags (--trace-gc…).
const LAUNCH: Launch = {
  tsx: flag('tsx'),
  nodeArgs: [
    ...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROFILE] : []),
    ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
  ],
};
const MASTER = randomBytes(32).toString('hex');
/** --peer DIR: also measure the stateless peer (a SUN checker that stores nothing) from that checkout (bench/lib/peer.ts), after each database. */
const PEER = arg('peer', '');
/** --no-thread: SQLite's group commit on the event loop (TAPPROOF_SCAN_WRITER_THREAD=0), for comparison. */
const NO_THREAD = flag('no-thread');
/** --client-ip: every scan carries a public client_ip, so that each one looks its country up in the GeoIP database. */
const CLIENT_IP = flag('client-ip');

const fire = (origin: string, key: string, bodies: string[], warmUp?: WarmUp) =>
  drive(
    `${origin}/api/v1/verifications`,
    CONNECTIONS,
    { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': JSON_API } },
    bodies.map((body) => ({ body })),
    warmUp,
  );

/** Fresh taps for the peer: its default configuration makes both SDM keys zero. */
function peerTaps(total: number): Record<string, string>[] {
  const zero = Buffer.alloc(16);
  const uids = Array.from({ length: CHIPS }, () => Buffer.from('04' + randomBytes(6).toString('hex'), 'hex'));
  return Array.from({ length: total }, (_, n) => {
    const sun = generateSun424({ crypto: 'aes', uid: uids[n % CHIPS]!, counter: Math.floor(n / CHIPS) + 1, sdmMetaReadKey: zero, sdmFileReadKey: zero });
    return { path: `/api/tag?picc_data=${sun.piccData}&cmac=${sun.cmac}` };
  });
}

interface PeerRow {
  perSecond: number;
  load: string;
  p99: number;
  /** Answers other than 200 (a SUN message the peer refused, or an error). */
  refused: number;
  perCore: number;
  /** CPU µs per request, uWSGI's master and workers. */
  cpuMicros: number;
}

/** The peer right after a database's run, on the same cores, with as many fresh taps. */
async function peerRound(peer: Peer): Promise<PeerRow> {
  const warm = peerTaps(WARMUP_REQUESTS);
  const measured = peerTaps(REQUESTS);
  const pids = processTree(peer.pid);
  let peerLoad = '';
  let cpuBefore = 0;
  // Warmed up on the measuring connections, as tapproof is.
  const r = await drive(`${peer.origin}/api/tag`, CONNECTIONS, { method: 'GET' }, [...warm, ...measured], {
    requests: warm.length,
    onWarm: () => {
      peerLoad = load();
      cpuBefore = cpuSeconds(pids);
    },
  });
  const row = {
    perSecond: r.measured / r.seconds,
    load: peerLoad,
    p99: r.latency.p99,
    refused: r.non2xx + r.errors + r.timeouts,
    perCore: r.measured / (cpuSeconds(pids) - cpuBefore),
    cpuMicros: ((cpuSeconds(pids) - cpuBefore) / r.measured) * 1e6,
  };
  console.log(
    `  stateless peer ${row.perSecond.toFixed(0)}/s (load ${row.load}), p99 ${row.p99} ms, ${row.perCore.toFixed(0)}/CPU-s, ${row.cpuMicros.toFixed(0)} µs CPU each${row.refused ? `, REFUSED ${row.refused}` : ''}`,
  );
  return row;
}

const load = () => loadavg()[0]!.toFixed(2);

interface Row {
  db: Kind;
  processes: string;
  healthz: number;
  healthzLoad: string;
  verifications: number;
  load: string;
  p50: number;
  p99: number;
  errors: number;
  genuine: string;
  /** Verifications per CPU-second of the server processes. */
  perCore: number;
  /** CPU µs per verification: tapproof's processes (all threads), and PostgreSQL's backends serving them (null on SQLite). */
  serverMicros: number;
  databaseMicros: number | null;
  /** Cores the server used while verifying. */
  cores: number;
  /** The server's busiest threads while verifying, each as a share of one core. */
  threads: string;
  /** The group commit while verifying: commits, scans per batch, time per commit. */
  batches: string;
  rss: number;
  /** POST /tags with 500 entries, one at a time: p50 ms. */
  tagsP50: number;
  tagsLoad: string;
}

/** p50 of POST /tags with 500 new tags, TAG_BATCHES requests one after another on the same server. */
const TAG_BATCHES = Number(arg('tag-batches', '15'));
let tagSeq = 0;
async function postTagsP50(origin: string, key: string): Promise<number> {
  const times: number[] = [];
  for (let b = 0; b < TAG_BATCHES; b++) {
    const data = Array.from({ length: 500 }, () => ({
      type: 'tags',
      attributes: { protocol: 'ntag_424_dna', url: `https://bench.example.com/new/${tagSeq++}`, comment: 'bench' },
    }));
    const body = JSON.stringify({ data });
    const started = performance.now();
    const response = await fetch(`${origin}/api/v1/tags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': JSON_API, accept: JSON_API },
      body,
    });
    await response.arrayBuffer();
    if (response.status !== 201) throw new Error(`POST /tags answered ${response.status}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function run(kind: Kind): Promise<Row> {
  console.log(`\n${kind}: importing ${CHIPS} chips, generating ${WARMUP_REQUESTS + REQUESTS} fresh taps`);
  const storage = await freshStorage(kind);
  const { key, chips, ctx } = await prepareTeam(storage, MASTER, CHIPS);
  const counters = new Map<string, number>();
  const warm = freshTaps(chips, counters, WARMUP_REQUESTS, CONNECTIONS, CLIENT_IP);
  const measured = freshTaps(chips, counters, REQUESTS, CONNECTIONS, CLIENT_IP);
  // PostgreSQL: the server's connections carry a name of their own, so that their backends can be told apart from
  // those of other clients of the same PostgreSQL (their CPU is part of each verification's cost).
  const applicationName = `tapproof_bench_${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    ...storage.env,
    ...(kind === 'postgres' ? { DATABASE_URL: withApplicationName(storage.env.DATABASE_URL!, applicationName) } : {}),
    TAPPROOF_MASTER_KEY: MASTER,
    TAPPROOF_EMBEDDED_WORKER: '0',
    ...(NO_THREAD ? { TAPPROOF_SCAN_WRITER_THREAD: '0' } : {}),
  };
  const server = await startServer(LAUNCH, env, PROCESSES > 1 ? ['--processes', String(PROCESSES)] : []);
  try {
    // --processes: the first worker answers /healthz before the others listen.
    if (PROCESSES > 1) await new Promise((r) => setTimeout(r, 8_000));
    const pids = processTree(server.child.pid!);
    const ceilingLoad = load();
    const ceiling = await loadChecked({ url: `${server.origin}/healthz`, connections: CONNECTIONS, duration: CEILING_SECONDS }, 'GET /healthz');
    const before = await countReasons(ctx);
    let rss = 0;
    const sampler = setInterval(() => (rss = Math.max(rss, ...pids.map(rssMiB))), 100);
    // The warm-up runs on the measuring connections, in the same load: the measured window opens on the answer
    // to the last warm-up tap, with the server's code already optimised for this traffic.
    let verifyLoad = '';
    const reads: { backends: Promise<Map<number, number>> | null; commits: Promise<Awaited<ReturnType<typeof commitStats>>> | null } = {
      backends: null,
      commits: null,
    };
    let cpuBefore = 0;
    let threadsBefore = new Map<string, number>();
    let clientBefore = process.cpuUsage();
    const r = await fire(server.origin, key, [...warm, ...measured], {
      requests: warm.length,
      onWarm: () => {
        cpuBefore = cpuSeconds(pids);
        threadsBefore = threadSeconds(pids);
        clientBefore = process.cpuUsage();
        verifyLoad = load();
        reads.backends = kind === 'postgres' ? backendSeconds(applicationName) : null;
        reads.commits = commitStats(server.origin);
      },
    });
    const backendsBefore = reads.backends === null ? null : await reads.backends;
    const commitsBefore = await reads.commits!;
    const seconds = r.seconds;
    const cpu = cpuSeconds(pids) - cpuBefore;
    const databaseCpu = backendsBefore === null ? null : backendDelta(backendsBefore, await backendSeconds(applicationName));
    const clientUsage = process.cpuUsage(clientBefore);
    const threads =
      busiestThreads(threadsBefore, threadSeconds(pids), seconds) + `; load generator ${((clientUsage.user + clientUsage.system) / 1e6 / seconds).toFixed(2)}`;
    const commitsAfter = await commitStats(server.origin);
    const commits = commitsAfter.count - commitsBefore.count;
    const perCommitMs = (total: (s: typeof commitsAfter) => number) => (((total(commitsAfter) - total(commitsBefore)) / commits) * 1000).toFixed(2);
    const fsyncWait = commitsAfter.fsyncWait > commitsBefore.fsyncWait ? ` (of which ${perCommitMs((s) => s.fsyncWait)} ms waiting for the WAL fsync)` : '';
    const asSeen = commitsAfter.asSeen - commitsBefore.asSeen;
    const oneStatement = asSeen > 0 ? `, ${asSeen} of them in one statement` : '';
    const batches = `${commits} commits${oneStatement}, ${((commitsAfter.scans - commitsBefore.scans) / commits).toFixed(1)} per batch, ${perCommitMs((s) => s.seconds)} ms each${fsyncWait}`;
    clearInterval(sampler);
    const after = await countReasons(ctx);
    const tagsLoad = load();
    const tagsP50 = await postTagsP50(server.origin, key);
    const ok = (after.get('ok') ?? 0) - (before.get('ok') ?? 0);
    const others = [...after].filter(([reason]) => reason !== 'ok').map(([reason, n]) => `${reason} ${n - (before.get(reason) ?? 0)}`);
    if (others.length > 0) console.log(`  not genuine: ${others.join(', ')}`);
    const all = [...after.values()].reduce((a, b) => a + b, 0) - [...before.values()].reduce((a, b) => a + b, 0);
    // A fixed number of requests over the time to the last response: the per-second average would count the last
    // partial second as a whole one, and autocannon ends (and reports its duration) only at its next 1 s tick
    // (20,000 requests answered in 3.4 s would read 6,667/s).
    const perSecond = r.measured / seconds;
    const row: Row = {
      db: kind,
      processes: `${PROCESSES}${NO_THREAD && kind === 'sqlite' ? ' (no commit thread)' : ''}`,
      healthz: ceiling.requests.average,
      healthzLoad: ceilingLoad,
      verifications: perSecond,
      load: verifyLoad,
      p50: r.latency.p50,
      p99: r.latency.p99,
      errors: r.errors + r.timeouts + r.non2xx,
      genuine: `${ok}/${all}`,
      perCore: r.measured / cpu,
      serverMicros: (cpu / r.measured) * 1e6,
      databaseMicros: databaseCpu === null ? null : (databaseCpu / r.measured) * 1e6,
      cores: cpu / seconds,
      threads,
      batches,
      rss,
      tagsP50,
      tagsLoad,
    };
    console.log(
      `  /healthz ${row.healthz.toFixed(0)}/s (load ${row.healthzLoad}); verifications ${perSecond.toFixed(0)}/s (load ${row.load}), ratio ${(perSecond / row.healthz).toFixed(3)}, ` +
        `p50 ${row.p50} ms p99 ${row.p99} ms, genuine ${row.genuine}, CPU per verification ${cpuColumns(row)}, ${row.perCore.toFixed(0)}/CPU-s on ${row.cores.toFixed(2)} cores (${threads}); ${batches}; peak RSS ${rss.toFixed(0)} MiB; POST /tags (500) p50 ${tagsP50.toFixed(1)} ms (load ${tagsLoad})${row.errors ? `, ERRORS ${row.errors}` : ''}`,
    );
    return row;
  } finally {
    await server.stop();
    await ctx.db.close();
    await storage.drop();
  }
}

function withApplicationName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('application_name', name);
  return parsed.toString();
}

/** CPU seconds (user + system) of each PostgreSQL backend serving connections named `applicationName`, by pid. */
async function backendSeconds(applicationName: string): Promise<Map<number, number>> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [applicationName]);
    return new Map(rows.map((r) => [r.pid, cpuSeconds([r.pid])]));
  } finally {
    await client.end();
  }
}

/** CPU used between two samples; a backend that started in between counts from zero. */
const backendDelta = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, seconds]) => sum + seconds - (before.get(pid) ?? 0), 0);

const totalMicros = (r: Pick<Row, 'serverMicros' | 'databaseMicros'>) => r.serverMicros + (r.databaseMicros ?? 0);

/** "tapproof N µs + PostgreSQL M µs = T µs", or "N µs" on SQLite. */
const cpuColumns = (r: Pick<Row, 'serverMicros' | 'databaseMicros'>) =>
  r.databaseMicros === null
    ? `${r.serverMicros.toFixed(0)} µs`
    : `tapproof ${r.serverMicros.toFixed(0)} µs + PostgreSQL ${r.databaseMicros.toFixed(0)} µs = ${(r.serverMicros + r.databaseMicros).toFixed(0)} µs`;

/** The group commit's totals from /metrics (every worker's, with --processes: the primary aggregates them). */
async function commitStats(origin: string): Promise<{ count: number; scans: number; seconds: number; fsyncWait: number; asSeen: number }> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  // A name alone matches its series with any labels; a name with labels matches that series only.
  const value = (name: string) => Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    count: value('tapproof_scan_commit_duration_seconds_count'),
    scans: value('tapproof_scan_batch_size_sum'),
    seconds: value('tapproof_scan_commit_duration_seconds_sum'),
    fsyncWait: value('tapproof_scan_fsync_wait_seconds_sum'),
    asSeen: value('tapproof_scan_batches_total{path="as_seen"}'),
  };
}

async function countReasons(ctx: AppContext): Promise<Map<string, number>> {
  const rows = await ctx.db.kysely
    .selectFrom('verifications')
    .select(['reason', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('reason')
    .execute();
  return new Map(rows.map((r) => [r.reason, Number(r.n)]));
}

if (!LAUNCH.tsx) execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
const results: Row[] = [];
const peers: PeerRow[] = [];
const peer = PEER ? await startPeer(PEER) : null;
try {
  for (const kind of KINDS) {
    results.push(await run(kind));
    if (peer) peers.push(await peerRound(peer));
  }
} finally {
  await peer?.stop();
}

const targets: Record<Kind, number> = { sqlite: 0.3, postgres: 0.25 };
const lines = [
  '# Scan verification benchmark',
  '',
  ...machineLines(),
  `- Server: \`${describeLaunch(LAUNCH)} serve${PROCESSES > 1 ? ` --processes ${PROCESSES}` : ''}\` on 127.0.0.1, LOG_LEVEL=warn, TAPPROOF_RATE_LIMIT raised, no embedded worker; autocannon in the bench process (shares the cores)`,
  `- ${CONNECTIONS} connections; ${REQUESTS} measured requests after ${WARMUP_REQUESTS} warm-up ones on the same connections, in the same load (the window opens on the last warm-up answer); ${CHIPS} imported NTAG 424 DNA (AES) chips;`,
  '  every request is a fresh tap (round-robin over the chips, counters rising); "genuine" counts the stored verifications with reason ok.',
  '  /healthz is measured first on the same server (the ceiling); the ratio is verifications/s ÷ /healthz/s. "Per CPU-s" divides the',
  '  verifications by the CPU time the server processes used meanwhile (user + system, all threads); "CPU µs" is its inverse, plus on',
  "  PostgreSQL the CPU of the backends serving the server's connections (/proc/<pid>/stat of the pids pg_stat_activity lists under the server's application_name).",
  ...(CLIENT_IP ? ['  Every scan carries a public `client_ip` (--client-ip): each looks its country up in the GeoIP database.'] : []),
  '',
  '| DB | processes | /healthz/s (load) | verifications/s (load) | ratio | p50 ms | p99 ms | genuine | per CPU-s | CPU µs per verification | cores used | peak RSS/process | POST /tags (500) p50 (load) |',
  '|---|--:|--:|--:|--:|--:|--:|--:|--:|--|--:|--:|--:|',
  ...results.map(
    (r) =>
      `| ${r.db} | ${r.processes} | ${r.healthz.toFixed(0)} (${r.healthzLoad}) | ${r.verifications.toFixed(0)} (${r.load}) | ${(r.verifications / r.healthz).toFixed(3)} | ${r.p50} | ${r.p99} | ${r.genuine} | ${r.perCore.toFixed(0)} | ${cpuColumns(r)} | ${r.cores.toFixed(2)} | ${r.rss.toFixed(0)} MiB | ${r.tagsP50.toFixed(1)} ms (${r.tagsLoad}) |`,
  ),
  '',
  ...(peers.length > 0
    ? [
        '## The stateless peer, measured after each database',
        '',
        `nfc-developer/sdm-backend (\`--peer\`, bench/lib/peer.ts): Flask under uWSGI, 2 processes, HTTP/1.1 keep-alive, its default configuration; ${CONNECTIONS} connections, as many fresh taps. It checks the same AES SUN message, stores nothing and checks no counter.`,
        '',
        '| after | peer/s (load) | p99 ms | refused | per CPU-s | peer CPU µs per request | tapproof ÷ peer (per second) | tapproof ÷ peer (per CPU-s, database included) |',
        '|---|--:|--:|--:|--:|--:|--:|--:|',
        ...peers.map(
          (p, i) =>
            `| ${results[i]!.db} | ${p.perSecond.toFixed(0)} (${p.load}) | ${p.p99} | ${p.refused} | ${p.perCore.toFixed(0)} | ${p.cpuMicros.toFixed(0)} | ${(results[i]!.verifications / p.perSecond).toFixed(2)} | ${(p.cpuMicros / totalMicros(results[i]!)).toFixed(2)} |`,
        ),
        '',
      ]
    : []),
  '## Targets',
  '',
  ...results.map((r, i) => {
    const ratio = r.verifications / r.healthz;
    const peer = peers[i];
    const overPeer = peer ? r.verifications / peer.perSecond : null;
    const peerTarget = overPeer === null ? '' : `; ≥ 2.0 × the stateless peer: ${overPeer.toFixed(2)} — ${overPeer >= 2 ? 'met' : '**missed**'}`;
    const [ok, all] = r.genuine.split('/').map(Number);
    return `- ${r.db}: ratio ≥ ${targets[r.db]}: ${ratio.toFixed(3)} — ${ratio >= targets[r.db] ? 'met' : '**missed**'}; p99 ≤ 25 ms: ${r.p99} ms — ${r.p99 <= 25 ? 'met' : '**missed**'}; 100 % genuine: ${r.genuine} — ${ok === all && ok === REQUESTS + WARMUP_REQUESTS ? 'met' : '**missed**'}; RSS ≤ 250 MiB: ${r.rss.toFixed(0)} MiB — ${r.rss <= 250 ? 'met' : '**missed**'}; CPU ≤ 80 µs per verification, database included: ${totalMicros(r).toFixed(0)} µs — ${totalMicros(r) <= 80 ? 'met' : '**missed**'}${peerTarget}`;
  }),
  '',
];
writeFileSync(join(ROOT, 'bench/RESULTS-verifications.md'), lines.join('\n'));
console.log('\nwrote bench/RESULTS-verifications.md');
