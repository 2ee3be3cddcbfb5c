// The floor under the verify path: what answering a POST /verifications costs on this machine with nothing of
// tapproof's own around it, measured like bench/verifications.ts (a server process on loopback, 50 connections,
// every request a fresh tap of one of 200 NTAG 424 DNA chips, the server's CPU per request from /proc).
//
//   npx tsx bench/floor.ts [--requests 60000] [--warmup 5000] [--db sqlite|postgres|both]
//
// Rows: node:http alone (read the body, parse it, answer a verification document); Fastify with the route's
// schemas; the same plus the SUN message's AES/CMAC (src/chips); tapproof's own GET /healthz, which runs every
// hook an API request runs but no route work; and, without HTTP, a verification row stored durably (the
// repository's insert into the migrated table and its three indexes, 17 rows a transaction as the scan batches
// run) on SQLite and PostgreSQL. Set against CPU per verification in RESULTS-verifications.md, they say
// how much of it is the stack's and how much is ours. Writes bench/RESULTS-floor.md.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { generateSun424 } from '../src/chips/index.js';
import { openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrations.js';
import { newId, newTimeOrderedId } from '../src/ids.js';
import { insertVerifications, type VerificationRow } from '../src/verifications/repository.js';
import { appendSdm, defaultLayout } from '../src/chips/url-layout.js';
import { arg, databaseKinds } from './lib/args.js';
import { cpuSeconds } from './lib/cpu.js';
import { drive } from './lib/drive.js';
import { machineLines } from './lib/machine.js';
import { freePort, startServer } from './lib/server.js';
import { freshStorage, type DatabaseKind } from './lib/storage.js';
import { ROOT, stopAll } from './lib/tapproof.js';

const CONNECTIONS = 50;
const CHIPS = 200;
const REQUESTS = Number(arg('requests', '60000'));
const WARMUP = Number(arg('warmup', '5000'));
const JSON_API = 'application/vnd.api+json';

const layout = defaultLayout('ntag_424_dna');
const chips = Array.from({ length: CHIPS }, (_, i) => ({
  uid: Buffer.from('04' + randomBytes(6).toString('hex'), 'hex'),
  url: `https://bench.example.com/t/${i}`,
  meta: randomBytes(16),
  file: randomBytes(16),
}));
// Round-robin over the chips, counters rising: every request a tap the chip could have made next.
const bodies = Array.from({ length: WARMUP + REQUESTS }, (_, n) => {
  const chip = chips[n % CHIPS]!;
  const sun = generateSun424({ crypto: 'aes', uid: chip.uid, counter: Math.floor(n / CHIPS) + 1, sdmMetaReadKey: chip.meta, sdmFileReadKey: chip.file });
  return JSON.stringify({ data: { type: 'verifications', attributes: { url: appendSdm(chip.url, layout, { picc_data: sun.piccData, cmac: sun.cmac }) } } });
});
const chipKeys = JSON.stringify(Object.fromEntries(chips.map((c) => [c.url, { meta: c.meta.toString('hex'), file: c.file.toString('hex') }])));

interface Row {
  name: string;
  perSecond: number;
  cpuMicros: number;
  failed: number;
}

async function measure(name: string, pid: number, url: string, method: 'GET' | 'POST'): Promise<Row> {
  const request = { method, headers: { 'content-type': JSON_API, authorization: 'Bearer floor' } };
  // A POST carries its own tap; a GET has nothing of its own.
  const pieces = (from: number, amount: number) =>
    method === 'POST' ? bodies.slice(from, from + amount).map((body) => ({ body })) : Array.from({ length: amount }, () => ({}));
  await drive(url, CONNECTIONS, request, pieces(0, WARMUP));
  const before = cpuSeconds([pid]);
  const result = await drive(url, CONNECTIONS, request, pieces(WARMUP, REQUESTS));
  const row = {
    name,
    perSecond: result.requests.total / result.seconds,
    cpuMicros: ((cpuSeconds([pid]) - before) / result.requests.total) * 1e6,
    failed: result.non2xx + result.errors + result.timeouts,
  };
  console.log(`${name}: ${row.perSecond.toFixed(0)}/s, ${row.cpuMicros.toFixed(1)} µs CPU per request${row.failed ? `, FAILED ${row.failed}` : ''}`);
  return row;
}

async function floorServer(mode: string): Promise<Row> {
  const port = await freePort();
  const child = fork(join(ROOT, 'bench/lib/floor-server.ts'), [mode, String(port), chipKeys], { execArgv: ['--import', 'tsx'], cwd: ROOT });
  try {
    await new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`floor server ${mode} exited with ${code}`)));
    });
    const names: Record<string, string> = {
      http: '`node:http`: read, parse, answer',
      fastify: 'Fastify route with the schemas',
      'fastify-sun': 'Fastify route + SUN AES/CMAC',
    };
    return await measure(names[mode]!, child.pid!, `http://127.0.0.1:${port}/api/v1/verifications`, 'POST');
  } finally {
    await stopAll([child]);
  }
}

async function tapproofHealthz(): Promise<Row> {
  const storage = await freshStorage('sqlite');
  const server = await startServer({ tsx: false }, { ...storage.env, TAPPROOF_MASTER_KEY: randomBytes(32).toString('hex'), TAPPROOF_EMBEDDED_WORKER: '0' });
  try {
    return await measure('tapproof `GET /healthz` (every hook, no route work)', server.child.pid!, `${server.origin}/healthz`, 'GET');
  } finally {
    await server.stop();
    await storage.drop();
  }
}

/**
 * REQUESTS verification rows stored by the repository's insert into the migrated table and its indexes, BATCH a
 * transaction as the scan batches run, each transaction durable before the next: on SQLite an fsync of the WAL after
 * a commit at synchronous=NORMAL (as the commit thread does), on PostgreSQL its own commit. CPU: this process, and
 * on PostgreSQL the backend serving its one connection.
 */
const BATCH = 17;
async function durableRows(kind: DatabaseKind): Promise<Row> {
  const storage = await freshStorage(kind);
  const target = storage.target;
  const db = openDatabase(target, target.kind === 'sqlite' ? { walFlush: 'caller' } : { poolSize: 1 });
  // On SQLite the migrations' commits create the WAL, which stays while the connection is open.
  await migrate(db);
  const wal = target.kind === 'sqlite' ? openSync(`${target.path}-wal`, 'r') : null;
  const backend = target.kind === 'postgres' ? Number((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db.kysely)).rows[0]!.pid) : null;
  const tags = chips.map(() => newId('tag'));
  const teamId = newId('team');
  let n = 0;
  const row = (): VerificationRow => {
    const at = Date.now() * 1000 + (n % 1000);
    n++;
    return {
      ...{ id: newTimeOrderedId('vrf', Math.floor(at / 1000)), team_id: teamId, mode: 'production', tag_id: tags[n % CHIPS]!, scanned_at: at },
      ...{ url_hash: randomBytes(32).toString('hex'), client_ip: null, country: null, write_generation: 1, genuine: 1, reason: 'ok' },
      ...{ read_counter: Math.floor(n / CHIPS) + 1, tamper_permanent: null, tamper_current: null, session_id: newId('ses'), signals: null },
    };
  };
  const store = async (count: number) => {
    for (let done = 0; done < count; done += BATCH) {
      const batch = Array.from({ length: BATCH }, row);
      await db.kysely.transaction().execute((trx) => insertVerifications(trx, batch));
      if (wal !== null) fdatasyncSync(wal);
    }
  };
  const cpu = () => {
    const own = process.cpuUsage();
    return (backend === null ? 0 : cpuSeconds([backend])) + (own.user + own.system) / 1e6;
  };
  try {
    await store(WARMUP);
    const before = cpu();
    const started = performance.now();
    await store(REQUESTS);
    const used = cpu() - before;
    const stored = Math.ceil(REQUESTS / BATCH) * BATCH;
    const result = {
      name: `${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL (client + backend)'}: a verification row stored durably, ${BATCH} a transaction`,
      perSecond: stored / ((performance.now() - started) / 1000),
      cpuMicros: (used / stored) * 1e6,
      failed: 0,
    };
    console.log(`${result.name}: ${result.perSecond.toFixed(0)}/s, ${result.cpuMicros.toFixed(1)} µs CPU per row`);
    return result;
  } finally {
    if (wal !== null) closeSync(wal);
    await db.close();
    await storage.drop();
  }
}

const rows: Row[] = [];
for (const mode of ['http', 'fastify', 'fastify-sun']) rows.push(await floorServer(mode));
rows.push(await tapproofHealthz());
for (const kind of databaseKinds()) rows.push(await durableRows(kind));

writeFileSync(
  join(ROOT, 'bench/RESULTS-floor.md'),
  [
    '# The floor under the verify path',
    '',
    ...machineLines(),
    `- \`npx tsx bench/floor.ts --requests ${REQUESTS} --warmup ${WARMUP}\`: ${CONNECTIONS} connections, every POST a fresh tap of one of ${CHIPS} NTAG 424 DNA (AES) chips;`,
    "  CPU per request is the server process's user + system time over the measured requests. autocannon shares the cores.",
    '',
    '| server | requests (rows) /s | CPU µs per request (row) | failed |',
    '|---|--:|--:|--:|',
    ...rows.map((r) => `| ${r.name} | ${r.perSecond.toFixed(0)} | ${r.cpuMicros.toFixed(1)} | ${r.failed} |`),
    '',
  ].join('\n'),
);
console.log('wrote bench/RESULTS-floor.md');
