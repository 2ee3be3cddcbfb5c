// What a filtered page of GET /verifications costs against an unfiltered one, as the history of one
// world grows: scans seeded straight into the database (one INSERT … SELECT), then each request
// timed one at a time through the real server on loopback. A measurement to print, not a test.
//
//   npx tsx bench/list-filters.ts [--db sqlite|postgres|both] [--scans 21000] [--requests 200]
import { sql } from 'kysely';
import { performance } from 'node:perf_hooks';
import { call, startServer, type TestServer } from '../test/kit/harness.js';
import { arg, databaseKinds } from './lib/args.js';
import { machineLines } from './lib/machine.js';
import { pad, series } from './lib/seed.js';
import type { DatabaseKind } from './lib/storage.js';

const KINDS = databaseKinds();
const SCANS = Number(arg('scans', '21000'));
const REQUESTS = Number(arg('requests', '200'));

/** One scan in ten a replay, one in 1,000 a bad CMAC (fewer than a page), the rest genuine. */
async function seed(kind: DatabaseKind, server: TestServer, teamId: string): Promise<void> {
  const reason = sql.raw(`case when s.i % 1000 = 7 then 'bad_cmac' when s.i % 10 = 0 then 'replayed' else 'ok' end`);
  const now = Date.UTC(2026, 0, 31) * 1000;
  await sql`insert into verifications (id, team_id, mode, tag_id, genuine, reason, read_counter, tamper_permanent, tamper_current, session_id,
      scanned_at, url_hash, client_ip, country, write_generation)
    select 'vrf_bench' || ${pad(kind, 's.i', 17)}, ${teamId}, 'sandbox', 'tag_bench' || (s.i % 500), case when ${reason} = 'ok' then 1 else 0 end, ${reason},
      null, null, null, null, ${sql.lit(now)} - s.i * 60000000, 'h' || s.i, null, null, 1
    from ${series(kind, SCANS)}`.execute(server.ctx.db.kysely);
  // PostgreSQL's autovacuum would analyze a table this size; SQLite is never analyzed (no sqlite_stat1).
  if (kind === 'postgres') await sql`analyze`.execute(server.ctx.db.kysely);
}

/** Median and 95th percentile of `REQUESTS` sequential requests, after 20 of warm-up. */
async function time(get: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < 20; i++) await get();
  const ms: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    await get();
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(ms.length / 2)]!, p95: ms[Math.floor(ms.length * 0.95)]! };
}

const lines: string[] = [];
for (const kind of KINDS) {
  const server = await startServer(kind);
  try {
    const world = await server.seedTeam();
    await seed(kind, server, world.teamId);
    const get = (path: string) => async () => {
      const response = await call(server, 'GET', path, { key: world.sandbox.key });
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${response.text}`);
      return response;
    };
    // The 4th page of a filtered walk, by the cursor links.next gives out.
    let deep = '/verifications?page_size=5&reason=bad_cmac';
    for (let page = 0; page < 3; page++) deep = ((await get(deep)()).body.links.next as string).replace(server.ctx.config.apiPrefix, '');
    for (const path of [
      '/verifications?page_size=25',
      '/verifications?page_size=25&reason=bad_cmac',
      '/verifications?page_size=25&genuine=false',
      '/verifications?page_size=25&genuine=true',
      deep,
    ]) {
      const { p50, p95 } = await time(get(path));
      const label = path === deep ? '/verifications?page_size=5&reason=bad_cmac, 4th page' : path;
      lines.push(`| ${kind} | \`GET ${label}\` | ${p50.toFixed(2)} | ${p95.toFixed(2)} |`);
      console.error(lines.at(-1));
    }
  } finally {
    await server.close();
  }
}
console.log(
  [
    ...machineLines(),
    `- ${SCANS.toLocaleString('en-US')} scans in one world (1 in 10 replayed, 1 in 1,000 bad_cmac), ${REQUESTS} sequential requests each`,
    '',
    '| DB | Request | p50 ms | p95 ms |',
    '|---|---|--:|--:|',
    ...lines,
  ].join('\n'),
);
