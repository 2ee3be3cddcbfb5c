// Console benchmark: the requests the operator console's Overview makes, and the first page of Scans,
// against the real server on loopback, for a team of 100,000 tags and 1,000,000 verifications seeded
// straight into the database with one INSERT … SELECT per table (no API, no per-row round trips).
// Also what signing in as a person costs: a page read with a session cookie beside the same page with a
// key, in alternating pairs (both are cached per process: a session as a key's principal is), and a
// password sign-in (scrypt); and the console's own size: its JavaScript and CSS, raw and gzipped.
//
//   npx tsx bench/console.ts [--db sqlite|postgres|both] [--tags 100000] [--scans 1000000] [--duration 10] [--connections 10] [--pairs 3] [--tsx]
//
// Writes bench/RESULTS-console.md.
import { load } from './lib/load.js';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import type { Db } from '../src/db/database.js';
import { migrate } from '../src/db/migrations.js';
import { CONSOLE_DIST } from '../src/http/console.js';
import { systemActor } from '../src/audit/record.js';
import { loadConfig } from '../src/config.js';
import { createKey } from '../src/keys/service.js';
import { inviteUser } from '../src/users/service.js';
import { createUsers } from '../src/users/feature.js';
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
/** Session and key rows per page, alternating which goes first: the machine's drift falls on both alike. */
const PAIRS = Number(arg('pairs', '3'));
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

/** The same pages as a person signed in: the session cookie instead of the key. */
const AS_PERSON = ['/tags?page_size=25', '/verifications?page_size=10'];
const EMAIL = 'bench@example.com';
const PASSWORD = 'a bench password, long enough';

interface Row {
  kind: DatabaseKind;
  page: string;
  path: string;
  /** Who asks: the key, or a person's session. */
  as: 'key' | 'session';
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

type Measured = Omit<Row, 'kind' | 'page' | 'path' | 'as'>;

async function measure(base: string, credential: { key: string } | { cookie: string }, path: string): Promise<Measured> {
  const url = path === '/healthz' ? base.replace(/\/api\/v1$/, '') + path : base + path;
  const signed = 'key' in credential ? { authorization: `Bearer ${credential.key}` } : { cookie: credential.cookie };
  const run = (duration: number) =>
    load({ url, connections: CONNECTIONS, duration, headers: { ...signed, accept: 'application/vnd.api+json' } }, `GET ${path}`);
  await run(1); // warm-up: plans and pages cached as they would be on a console in use
  const r = await run(DURATION);
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, errors: r.non2xx + r.errors };
}

/** Password sign-ins one after another: scrypt's cost is the row. */
async function signIns(origin: string): Promise<Measured> {
  const r = await load(
    {
      url: `${origin}/auth/sign-in`,
      method: 'POST',
      connections: 1,
      duration: DURATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    },
    'POST /auth/sign-in',
  );
  return { rps: Math.round(r.requests.average * 10) / 10, p50: r.latency.p50, p99: r.latency.p99, errors: r.non2xx + r.errors };
}

/** The invited person sets their password with the link, which signs them in: their session cookie. */
async function personSession(origin: string, link: string): Promise<string> {
  const token = link.slice(link.indexOf('#') + 1);
  const response = await fetch(`${origin}/auth/links/password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, password: PASSWORD }),
  });
  if (response.status !== 200) throw new Error(`setting the password: ${response.status} ${await response.text()}`);
  return /tapproof_session=[^;]+/.exec(response.headers.get('set-cookie') ?? '')![0];
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
  const usersCtx = { db, clock: systemClock, config: loadConfig({}), ...createUsers({ db, clock: systemClock }) };
  const { link } = await inviteUser(usersCtx, { teamId, actor: systemActor('bench') }, { email: EMAIL, role: 'read' }, 'http://bench');
  const started = Date.now();
  await seed(kind, db, teamId, systemClock.nowMicros());
  seeding.push(`${kind}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${kind}: seeded ${TAGS} tags and ${SCANS} verifications in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await db.close();
  const server = await startServer(LAUNCH, storage.env);
  try {
    for (const request of REQUESTS) {
      const result = await measure(server.base, { key }, request.path);
      rows.push({ kind, ...request, as: 'key', ...result });
      console.log(kind, request.path, result);
    }
    const origin = server.base.replace(/\/api\/v1$/, '');
    const cookie = await personSession(origin, link.url);
    // Each page again, the key and the session in alternation, so that both meet the same machine.
    for (const path of AS_PERSON) {
      const page = REQUESTS.find((r) => r.path === path)!.page;
      for (let pair = 0; pair < PAIRS; pair++) {
        const order = pair % 2 === 0 ? ([{ cookie }, { key }] as const) : ([{ key }, { cookie }] as const);
        for (const credential of order) {
          const result = await measure(server.base, credential, path);
          rows.push({ kind, page: `${page} (pair ${pair + 1})`, path, as: 'key' in credential ? 'key' : 'session', ...result });
          console.log(kind, path, 'key' in credential ? 'key' : 'session', result);
        }
      }
    }
    const signIn = await signIns(origin);
    rows.push({ kind, page: 'Sign-in (one connection)', path: '/auth/sign-in', as: 'session', ...signIn });
    console.log(kind, 'sign-in', signIn);
  } finally {
    await server.stop();
    await storage.drop();
  }
}

/** A session's throughput against a key's on the same page, over all pairs. */
const pairs = KINDS.flatMap((kind) =>
  AS_PERSON.map((path) => {
    const paired = rows.filter((r) => r.kind === kind && r.path === path && r.page.includes('(pair '));
    const total = (as: Row['as']) => paired.filter((r) => r.as === as).reduce((sum, r) => sum + r.rps, 0);
    return { kind, path, session: total('session'), key: total('key') };
  }),
);

const sizes = consoleSize();
const ENGINE: Record<DatabaseKind, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
const kb = (n: number) => (n / 1024).toFixed(1);
const report = `# Console benchmark

${machineLines().join('\n')}
- \`npx tsx bench/console.ts --db ${KINDS.length === 2 ? 'both' : KINDS[0]} --tags ${TAGS} --scans ${SCANS}\`: one team of ${TAGS.toLocaleString('en-US')} tags and
  ${SCANS.toLocaleString('en-US')} verifications over 30 days, seeded with one INSERT … SELECT per table (${seeding.join(', ')}); the server is
  \`${describeLaunch(LAUNCH)} serve\` on loopback, rate limit raised; autocannon, ${CONNECTIONS} connections, ${DURATION} s per row after 1 s of warm-up.
  Latencies in ms as autocannon sees them on loopback (0 = under 1 ms).

| DB | Console page | Request | As | req/s | p50 | p99 | non-2xx |
|---|---|---|---|--:|--:|--:|--:|
${rows
  .map(
    (r) =>
      `| ${ENGINE[r.kind]} | ${r.page} | \`${r.path === '/auth/sign-in' ? 'POST' : 'GET'} ${r.path}\` | ${r.as} | ${r.rps.toLocaleString('en-US')} | ${r.p50} | ${r.p99} | ${r.errors} |`,
  )
  .join('\n')}

"As session": a person signed in to the console (the cookie; its session cached per process, dropped on every server
when it ends or changes, src/users/session-cache.ts); "key": an API key (its principal cached alike). The sign-in row
is a password sign-in after another at one connection: scrypt (N = 2^15, r = 8, p = 1) is its cost.

A session against a key, ${PAIRS} alternating pairs per page (requests per second summed over the pairs):

| DB | Request | session | key | session / key |
|---|---|--:|--:|--:|
${pairs.map((p) => `| ${ENGINE[p.kind]} | \`GET ${p.path}\` | ${p.session.toLocaleString('en-US')} | ${p.key.toLocaleString('en-US')} | ${((p.session / p.key) * 100).toFixed(1)} % |`).join('\n')}

Console assets (\`packages/console/dist/assets\`, gzip level 9):

| File | Size | gzipped |
|---|--:|--:|
${sizes.map((s) => `| \`${s.file}\` | ${kb(s.raw)} kB | ${kb(s.gzip)} kB |`).join('\n')}
`;
writeFileSync(new URL('./RESULTS-console.md', import.meta.url), report);
console.log(report);
