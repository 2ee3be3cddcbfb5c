// Console benchmark: the requests the operator console's Overview makes, and the first page of Scans,
// against the real server on loopback, for a team of 100,000 tags and 1,000,000 verifications seeded
// straight into the database with one INSERT … SELECT per table (no API, no per-row round trips).
// Also the console's own size: its JavaScript and CSS, raw and gzipped.
//
//   npx tsx bench/console.ts [--db sqlite|postgres|both] [--tags 100000] [--scans 1000000] [--duration 10] [--connections 10] [--tsx]
//
// Writes bench/RESULTS-console.md.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import type { Db } from '../src/db/database.js';
import { migrate } from '../src/db/migrations.js';
import { CONSOLE_DIST } from '../src/http/console.js';
import { createKey } from '../src/keys/service.js';
import { createTeam } from '../src/teams/service.js';
import { systemClock } from '../src/time.js';
import { arg, databaseKinds, flag } from './lib/args.js';
import { machineLines } from './lib/machine.js';
import { pad, series, utcDay } from './lib/seed.js';
import { startServer } from './lib/server.js';
import { freshStorage, type DatabaseKind } from './lib/storage.js';
import { describeLaunch, type Launch } from './lib/tapproof.js';

const KINDS = databaseKinds();
const TAGS = Number(arg('tags', '100000'));
const SCANS = Number(arg('scans', '1000000'));
const DURATION = Number(arg('duration', '10'));
const CONNECTIONS = Number(arg('connections', '10'));
const LAUNCH: Launch = { tsx: flag('tsx') };
/** The scans are spread evenly over the 30 days before the run: the Overview's default window. */
const SPREAD_MICROS = 30 * 86_400_000_000;

/** What the console asks: the Overview's two reads, and the Scans page's first page. */
const REQUESTS = [
  // The same server's cheapest answer, measured in the same minute: the machine's ceiling to compare with.
  { page: '(ceiling)', path: '/healthz' },
  { page: 'Overview', path: '/verifications/stats' },
  { page: 'Overview (live, every 5 s)', path: '/verifications?page_size=10' },
  { page: 'Scans, first page', path: '/verifications?page_size=25' },
  { page: 'Scans, first page, not genuine', path: '/verifications?page_size=25&genuine=false' },
  { page: 'Tags, first page', path: '/tags?page_size=25' },
];

interface Row {
  kind: DatabaseKind;
  page: string;
  path: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function seed(kind: DatabaseKind, db: Db, teamId: string, now: number): Promise<void> {
  const k = db.kysely;
  const tagId = (expr: string) => sql`'tag_bench' || ${pad(kind, expr, 13)}`;
  await sql`insert into tags (id, team_id, mode, protocol, url, comment, comment_folded, session_duration, status, configured_at, inserted_at, updated_at)
    select ${tagId('s.i')}, ${teamId}, 'sandbox', 'ntag_424_dna', 'https://bench.example/p/' || s.i, 'bench ' || s.i, 'bench ' || s.i, 60, 'configured',
      ${sql.lit(now)}, ${sql.lit(now)} - s.i, ${sql.lit(now)} - s.i
    from ${series(kind, TAGS)}`.execute(k);
  await sql`insert into tag_counts (team_id, mode, tag_count) values (${teamId}, 'sandbox', ${TAGS})`.execute(k);
  // One scan in ten a replay, countries in four groups (one unknown), newest at `now`.
  const step = Math.floor(SPREAD_MICROS / SCANS);
  await sql`insert into verifications (id, team_id, mode, tag_id, genuine, reason, read_counter, tamper_permanent, tamper_current, session_id,
      scanned_at, url_hash, client_ip, country, write_generation)
    select 'vrf_bench' || ${pad(kind, 's.i', 13)}, ${teamId}, 'sandbox', ${tagId(`s.i % ${TAGS}`)},
      case when s.i % 10 = 0 then 0 else 1 end, case when s.i % 10 = 0 then 'replayed' else 'ok' end, s.i / ${sql.lit(TAGS)} + 1, null, null, null,
      ${sql.lit(now)} - s.i * ${sql.lit(step)}, 'bench' || s.i, '203.0.113.' || (s.i % 250),
      case s.i % 4 when 0 then 'DE' when 1 then 'FR' when 2 then 'US' else null end, 1
    from ${series(kind, SCANS)}`.execute(k);
  await sql`insert into scan_counts (team_id, mode, day, reason, country, count)
    select team_id, mode, ${utcDay(kind, 'scanned_at')}, reason, coalesce(country, ''), count(*) from verifications where team_id = ${teamId} group by 1, 2, 3, 4, 5`.execute(
    k,
  );
  await sql`analyze`.execute(k);
}

async function measure(base: string, key: string, path: string): Promise<Omit<Row, 'kind' | 'page' | 'path'>> {
  const url = path === '/healthz' ? base.replace(/\/api\/v1$/, '') + path : base + path;
  const run = (duration: number) =>
    autocannon({ url, connections: CONNECTIONS, duration, headers: { authorization: `Bearer ${key}`, accept: 'application/vnd.api+json' } });
  await run(1); // warm-up: plans and pages cached as they would be on a console in use
  const r = await run(DURATION);
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, errors: r.non2xx + r.errors };
}

function consoleSize(): { file: string; raw: number; gzip: number }[] {
  const dir = join(CONSOLE_DIST, 'assets');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js') || f.endsWith('.css'))
    .map((file) => {
      const bytes = readFileSync(join(dir, file));
      return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
    });
}

const rows: Row[] = [];
const seeding: string[] = [];
for (const kind of KINDS) {
  const storage = await freshStorage(kind);
  const db = storage.open();
  await migrate(db);
  const { id: teamId } = await createTeam(db.kysely, 'bench', null, systemClock);
  const { key } = await createKey(db.kysely, teamId, 'sandbox', systemClock);
  const started = Date.now();
  await seed(kind, db, teamId, systemClock.nowMicros());
  seeding.push(`${kind}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${kind}: seeded ${TAGS} tags and ${SCANS} verifications in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await db.close();
  const server = await startServer(LAUNCH, storage.env);
  try {
    for (const request of REQUESTS) {
      const result = await measure(server.base, key, request.path);
      rows.push({ kind, ...request, ...result });
      console.log(kind, request.path, result);
    }
  } finally {
    await server.stop();
    await storage.drop();
  }
}

const sizes = consoleSize();
const ENGINE: Record<DatabaseKind, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
const kb = (n: number) => (n / 1024).toFixed(1);
const report = `# Console benchmark

${machineLines().join('\n')}
- \`npx tsx bench/console.ts --db ${KINDS.length === 2 ? 'both' : KINDS[0]} --tags ${TAGS} --scans ${SCANS}\`: one team of ${TAGS.toLocaleString('en-US')} tags and
  ${SCANS.toLocaleString('en-US')} verifications over 30 days, seeded with one INSERT … SELECT per table (${seeding.join(', ')}); the server is
  \`${describeLaunch(LAUNCH)} serve\` on loopback, rate limit raised; autocannon, ${CONNECTIONS} connections, ${DURATION} s per row after 1 s of warm-up.
  Latencies in ms as autocannon sees them on loopback (0 = under 1 ms).

| DB | Console page | Request | req/s | p50 | p99 | non-2xx |
|---|---|---|--:|--:|--:|--:|
${rows.map((r) => `| ${ENGINE[r.kind]} | ${r.page} | \`GET ${r.path}\` | ${r.rps.toLocaleString('en-US')} | ${r.p50} | ${r.p99} | ${r.errors} |`).join('\n')}

Console assets (\`packages/console/dist/assets\`, gzip level 9):

| File | Size | gzipped |
|---|--:|--:|
${sizes.map((s) => `| \`${s.file}\` | ${kb(s.raw)} kB | ${kb(s.gzip)} kB |`).join('\n')}
`;
writeFileSync(new URL('./RESULTS-console.md', import.meta.url), report);
console.log(report);
