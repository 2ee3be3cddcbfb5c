// A year of a large brand's scans: the same server measured on an empty database, then on one holding
// 1,000,000 tags (each with its chip) and a year of scans (20,000,000 on PostgreSQL, 10,000,000 on
// SQLite, with their sessions and per-day counts), seeded straight into the database as fast as the
// engine loads it. Verify throughput, the reads an operator makes (the console's Overview, Scans pages
// near and far, a tag's history, stats over 366 days, tag search, the Cases page, a case of 10,000 scans
// and its scans page by page, the daily digest of cases), bytes on disk per stored scan, and what pruning
// a month of scans costs while scans keep arriving.
//
//   npx tsx bench/year.ts [--db sqlite|postgres|both] [--tags 1000000] [--sqlite-scans 10000000]
//     [--postgres-scans 20000000] [--verify 30000] [--samples 400] [--pages 10000] [--no-prune] [--keep] [--tsx]
//
// Writes bench/RESULTS-year.md.
import { load as loadChecked } from './lib/load.js';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import { caseDigest } from '../src/cases/digest-repository.js';
import { emptyCounts } from '../src/cases/counts.js';
import * as casesRepo from '../src/cases/repository.js';
import type { CaseRow, CaseScanRow } from '../src/cases/repository.js';
import { listCases, getCase } from '../src/cases/service.js';
import type { Database } from '../src/db/schema.js';
import { newId } from '../src/ids.js';
import type { Kernel } from '../src/kernel.js';
import { worldVerifications } from '../src/verifications/repository.js';
import type { World } from '../src/world.js';
import { arg, databaseKinds, flag } from './lib/args.js';
import { drive } from './lib/drive.js';
import { machineLines } from './lib/machine.js';
import { pad, series, utcDay } from './lib/seed.js';
import { startServer, type BenchServer } from './lib/server.js';
import { freshStorage, type DatabaseKind, type Storage } from './lib/storage.js';
import { ROOT, describeLaunch, type Launch } from './lib/tapproof.js';
import { freshTaps, prepareTeam, type BenchTeam } from './lib/taps.js';

const KINDS = databaseKinds();
const TAGS = Number(arg('tags', '1000000'));
const SCANS: Record<DatabaseKind, number> = { sqlite: Number(arg('sqlite-scans', '10000000')), postgres: Number(arg('postgres-scans', '20000000')) };
const VERIFY = Number(arg('verify', '30000'));
const WARMUP = 5_000;
const CONNECTIONS = 50;
const CHIPS = 200;
const SAMPLES = Number(arg('samples', '400'));
const PAGES = Number(arg('pages', '10000'));
const PRUNE = !flag('no-prune');
const KEEP = flag('keep');
const LAUNCH: Launch = { tsx: flag('tsx') };
const MASTER = randomBytes(32).toString('hex');
const JSON_API = 'application/vnd.api+json';
const DAY_MICROS = 86_400_000_000;
/** Rows per seeding statement: each a transaction of its own, progress printed after each. */
const CHUNK = 500_000;
const ENGINE: Record<DatabaseKind, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

const load = () => loadavg()[0]!.toFixed(2);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));

/** A seeded tag's id (a valid `tag_` id: 22 base62 digits). Scan i is of tag (i × 7919) mod TAGS, so a tag's scans spread over the year. */
const tagId = (kind: DatabaseKind, expr: string) => sql`'tag_' || ${pad(kind, expr, 22)}`;
const seededTag = (k: number) => `tag_${String(k).padStart(22, '0')}`;
/** Seeded scan ids sort below every id the verify path makes (time-ordered, led by the milliseconds). */
const SEEDED_BELOW = 'vrf_01';

/** Scans in the one long case: a harvested tag's URL replayed by the buyers of its copies. */
const LONG_CASE_SCANS = 10_000;
/** Days over which the long case's replays arrive, up to the end of the year. */
const LONG_CASE_DAYS = 90;
/** Days from a case's newest scan to its resolution: 1 to RESOLVED_WITHIN, case after case. */
const RESOLVED_WITHIN = 10;
const RESOLUTIONS = ['counterfeit_confirmed', 'false_positive', 'expected'] as const;

/** One in 50 a replay, one in 200 a bad CMAC, one in 500 bad PICC data, one in 1,000 a counter gap; the rest genuine. */
const REASON = `case when s.i % 200 = 7 then 'bad_cmac' when s.i % 500 = 11 then 'bad_picc_data' when s.i % 50 = 3 then 'replayed' else 'ok' end`;
const COUNTRY = `case s.i % 10 when 0 then 'DE' when 1 then 'DE' when 2 then 'FR' when 3 then 'US' when 4 then 'US' when 5 then 'GB' when 6 then 'JP' when 7 then 'IT' when 8 then 'ES' else null end`;

async function timed(label: string, run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  const seconds = (performance.now() - started) / 1000;
  console.log(`  ${label}: ${seconds.toFixed(1)} s`);
  return seconds;
}

/** 1,000,000 configured tags, each with a chip copied from an imported one, then a year of scans, sessions and counts. */
async function seed(kind: DatabaseKind, db: Kysely<Database>, team: BenchTeam, scans: number): Promise<{ notes: string[]; longCase: string }> {
  const notes: string[] = [];
  const end = Date.now() * 1000;
  const start = end - 366 * DAY_MICROS;
  const step = Math.floor((366 * DAY_MICROS) / scans);
  const template = team.chips[0]!.url;
  const templateTag = (await db.selectFrom('tags').select('id').where('url', '=', template).executeTakeFirstOrThrow()).id;
  if (kind === 'sqlite') {
    // The loader's own connection: a large page cache, no fsync per statement (a crash would lose a bench, not data).
    await sql`pragma cache_size = -4000000`.execute(db);
    await sql`pragma synchronous = off`.execute(db);
  }
  const seconds = { tags: 0, scans: 0, counts: 0 };
  for (let from = 0; from < TAGS; from += CHUNK) {
    const count = Math.min(CHUNK, TAGS - from);
    seconds.tags += await timed(`tags ${fmt(from + count)}/${fmt(TAGS)}`, async () => {
      await sql`insert into tags (id, team_id, mode, protocol, url, comment, comment_folded, session_duration, status, configured_at, inserted_at, updated_at)
        select ${tagId(kind, 's.i')}, ${team.teamId}, 'production', 'ntag_424_dna', 'https://brand.example/p/' || ${pad(kind, 's.i', 7)},
          'Bottle ' || ${pad(kind, 's.i', 7)} || ' lot ' || (s.i % 977), 'bottle ' || ${pad(kind, 's.i', 7)} || ' lot ' || (s.i % 977), 60, 'configured',
          ${sql.lit(start)} - (${sql.lit(TAGS)} - s.i) * 1000000, ${sql.lit(start)} - (${sql.lit(TAGS)} - s.i) * 1000000, ${sql.lit(start)}
        from ${series(kind, count, from)}`.execute(db);
      await sql`insert into chips (tag_id, team_id, mode, protocol, uid, crypto, mirroring, key_source, key_version, sdm_meta_read_key_sealed,
          sdm_file_read_key_sealed, params, mac_input_from, write_generation, last_counter, session_id, session_expires_at, created_at, last_country,
          last_genuine_at, tamper_opened, master_generation, pending_key_version, pending_master_generation, app_master_key_sealed)
        select ${tagId(kind, 's.i')}, t.team_id, t.mode, t.protocol, '04' || ${pad(kind, 's.i', 12)}, t.crypto, t.mirroring, t.key_source, t.key_version,
          t.sdm_meta_read_key_sealed, t.sdm_file_read_key_sealed, t.params, t.mac_input_from, t.write_generation, ${sql.lit(Math.ceil(scans / TAGS))},
          null, null, ${sql.lit(start)}, 'DE', ${sql.lit(end)}, 0, t.master_generation, null, null, t.app_master_key_sealed
        from ${series(kind, count, from)} cross join (select * from chips where tag_id = ${templateTag}) as t`.execute(db);
    });
  }
  await sql`update tag_counts set tag_count = tag_count + ${TAGS} where team_id = ${team.teamId} and mode = 'production'`.execute(db);
  const urlHash = kind === 'sqlite' ? sql.raw(`lower(hex(randomblob(32)))`) : sql.raw(`md5(s.i::text) || md5((s.i + 1)::text)`);
  for (let from = 0; from < scans; from += CHUNK) {
    const count = Math.min(CHUNK, scans - from);
    seconds.scans += await timed(`scans ${fmt(from + count)}/${fmt(scans)}`, async () => {
      await sql`insert into verifications (id, team_id, mode, tag_id, genuine, reason, read_counter, tamper_permanent, tamper_current, session_id,
          scanned_at, url_hash, client_ip, country, write_generation, signals)
        select 'vrf_' || ${pad(kind, 's.i', 22)}, ${team.teamId}, 'production', ${tagId(kind, `(s.i * 7919) % ${TAGS}`)},
          case when ${sql.raw(REASON)} = 'ok' then 1 else 0 end, ${sql.raw(REASON)}, s.i / ${sql.lit(TAGS)} + 1, null, null,
          case when ${sql.raw(REASON)} = 'ok' then 'ses_' || ${pad(kind, 's.i', 22)} else null end,
          ${sql.lit(start)} + s.i * ${sql.lit(step)}, ${urlHash}, '198.51.100.' || (s.i % 250), ${sql.raw(COUNTRY)}, 1,
          case when s.i % 1000 = 5 then 'counter_gap' else null end
        from ${series(kind, count, from)}`.execute(db);
      await sql`insert into sessions (id, team_id, mode, tag_id, opened_at, expires_at)
        select 'ses_' || ${pad(kind, 's.i', 22)}, ${team.teamId}, 'production', ${tagId(kind, `(s.i * 7919) % ${TAGS}`)},
          ${sql.lit(start)} + s.i * ${sql.lit(step)}, ${sql.lit(start)} + s.i * ${sql.lit(step)} + 60000000
        from ${series(kind, count, from)} where ${sql.raw(REASON)} = 'ok'`.execute(db);
    });
  }
  let cases: SeededCases | undefined;
  const casesSeconds = await timed('cases', async () => (cases = await seedCases(kind, db, team, scans, end)));
  seconds.counts = await timed('per-day counts', async () => {
    const day = utcDay(kind, 'scanned_at');
    await sql`insert into scan_counts (team_id, mode, day, reason, country, count)
      select team_id, mode, ${day}, reason, coalesce(country, ''), count(*) from verifications where id < ${SEEDED_BELOW} group by 1, 2, 3, 4, 5
      on conflict (team_id, mode, day, reason, country) do update set count = scan_counts.count + excluded.count`.execute(db);
    // Every seeded flagged scan carries one signal, so its signals column is the signal's name.
    for (const signal of ['counter_gap', 'replay_burst', 'flagged']) {
      const carrying = signal === 'flagged' ? sql`signals is not null` : sql`signals = ${signal}`;
      await sql`insert into signal_counts (team_id, mode, day, signal, count)
        select team_id, mode, ${day}, ${signal}, count(*) from verifications where id < ${SEEDED_BELOW} and ${carrying} group by 1, 2, 3
        on conflict (team_id, mode, day, signal) do update set count = signal_counts.count + excluded.count`.execute(db);
    }
    await sql`insert into flagged_counts (team_id, mode, day, country, count)
      select team_id, mode, ${day}, coalesce(country, ''), count(*) from verifications where id < ${SEEDED_BELOW} and signals is not null group by 1, 2, 3, 4
      on conflict (team_id, mode, day, country) do update set count = flagged_counts.count + excluded.count`.execute(db);
  });
  // What a database in service would have done meanwhile: PostgreSQL's autovacuum (statistics and the visibility
  // map its index-only scans read); SQLite's checkpoint of the WAL. SQLite is never analyzed, as in service.
  const settle = await timed('settle', async () => {
    if (kind === 'postgres') await sql`vacuum analyze`.execute(db);
    else await sql`pragma wal_checkpoint(truncate)`.execute(db);
  });
  const rate = (rows: number, s: number) => `${fmt(rows / s)} rows/s`;
  notes.push(
    `${ENGINE[kind]}: ${fmt(TAGS)} tags and chips in ${seconds.tags.toFixed(0)} s (${rate(TAGS * 2, seconds.tags)}); ${fmt(scans)} scans and their sessions in ${seconds.scans.toFixed(0)} s (${rate(scans, seconds.scans)} scans); ${cases!.summary} in ${casesSeconds.toFixed(0)} s; per-day counts ${seconds.counts.toFixed(0)} s; ${kind === 'postgres' ? 'vacuum analyze' : 'WAL checkpoint'} ${settle.toFixed(0)} s`,
  );
  return { notes, longCase: cases!.longCase };
}

interface SeededCases {
  longCase: string;
  summary: string;
}

/**
 * The cases the scan commit would have opened for the year's flagged scans (src/cases/opening.ts), written
 * by its own repository. A tag's flagged scan joins its case unless the team resolved that case before the
 * scan came, which it does 1 to RESOLVED_WITHIN days after the case's newest scan; a case whose resolution
 * would fall after now is still open (or, one in three, acknowledged). Then one harvested tag whose copied
 * URL was replayed LONG_CASE_SCANS times over the last LONG_CASE_DAYS days: one acknowledged case of them all.
 */
async function seedCases(kind: DatabaseKind, db: Kysely<Database>, team: BenchTeam, scans: number, end: number): Promise<SeededCases> {
  const flagged = await db
    .selectFrom('verifications')
    .select(['id', 'tag_id', 'scanned_at', 'country'])
    .where('team_id', '=', team.teamId)
    .where('mode', '=', 'production')
    .where('signals', 'is not', null)
    .where('id', '<', SEEDED_BELOW)
    .orderBy('scanned_at')
    .orderBy('id')
    .execute();
  const flaggedTags = new Set(flagged.map((r) => r.tag_id));
  let harvested = 1;
  while (flaggedTags.has(seededTag(harvested))) harvested++;
  const step = Math.floor((LONG_CASE_DAYS * DAY_MICROS) / LONG_CASE_SCANS);
  const from = end - LONG_CASE_DAYS * DAY_MICROS;
  await sql`insert into verifications (id, team_id, mode, tag_id, genuine, reason, read_counter, tamper_permanent, tamper_current, session_id,
      scanned_at, url_hash, client_ip, country, write_generation, signals)
    select 'vrf_' || ${pad(kind, `s.i + ${scans}`, 22)}, ${team.teamId}, 'production', ${seededTag(harvested)}, 0, 'replayed', 1, null, null, null,
      ${sql.lit(from)} + s.i * ${sql.lit(step)}, 'harvested', '203.0.113.' || (s.i % 250), ${sql.raw(COUNTRY)}, 1, 'replay_burst'
    from ${series(kind, LONG_CASE_SCANS, 0)}`.execute(db);
  const replays = await db
    .selectFrom('verifications')
    .select(['id', 'tag_id', 'scanned_at', 'country'])
    .where('tag_id', '=', seededTag(harvested))
    .where('signals', 'is not', null)
    .orderBy('scanned_at')
    .orderBy('id')
    .execute();

  type Scan = (typeof flagged)[number];
  const cases: CaseRow[] = [];
  const members: CaseScanRow[] = [];
  const open = (scan: Scan, signal: 'counter_gap' | 'replay_burst', previous: string | null): CaseRow => ({
    id: newId('case'),
    team_id: team.teamId,
    mode: 'production',
    tag_id: scan.tag_id,
    state: 'open',
    opened_at: scan.scanned_at,
    last_seen_at: scan.scanned_at,
    updated_at: scan.scanned_at,
    scans: 0,
    signals: signal,
    signal_counts: '',
    countries: '',
    assignee_id: null,
    resolution: null,
    resolution_note: null,
    previous_case_id: previous,
    acknowledged_at: null,
    resolved_at: null,
  });
  /** The case's scans and countries, once it has them all. */
  const complete = (row: CaseRow, run: Scan[], signal: 'counter_gap' | 'replay_burst') => {
    for (const r of run) members.push({ case_id: row.id, scanned_at: r.scanned_at, verification_id: r.id });
    const countries = [...new Set(run.flatMap((r) => (r.country === null ? [] : [r.country])))].sort();
    Object.assign(row, {
      scans: run.length,
      last_seen_at: run.at(-1)!.scanned_at,
      updated_at: run.at(-1)!.scanned_at,
      signal_counts: JSON.stringify({ ...emptyCounts(), [signal]: run.length }),
      countries: JSON.stringify(countries),
    });
    cases.push(row);
  };
  const hour = 3_600_000_000;
  const byTag = new Map<string, Scan[]>();
  for (const r of flagged) {
    const rows = byTag.get(r.tag_id);
    if (rows) rows.push(r);
    else byTag.set(r.tag_id, [r]);
  }
  for (const rows of byTag.values()) {
    let row: CaseRow | null = null;
    let run: Scan[] = [];
    const resolution = () => run.at(-1)!.scanned_at + (1 + (cases.length % RESOLVED_WITHIN)) * DAY_MICROS;
    const close = (resolved: number) => {
      const acknowledged = Math.min(row!.opened_at + (1 + (cases.length % 12)) * hour, resolved);
      if (resolved <= end)
        Object.assign(row!, {
          state: 'resolved',
          resolution: RESOLUTIONS[cases.length % RESOLUTIONS.length],
          acknowledged_at: acknowledged,
          resolved_at: resolved,
        });
      else if (cases.length % 3 === 0 && acknowledged <= end) Object.assign(row!, { state: 'acknowledged', acknowledged_at: acknowledged });
      complete(row!, run, 'counter_gap');
      if (row!.resolved_at !== null) row!.updated_at = row!.resolved_at;
      else if (row!.acknowledged_at !== null) row!.updated_at = Math.max(row!.updated_at, row!.acknowledged_at);
    };
    for (const scan of rows) {
      if (row !== null && scan.scanned_at < resolution()) {
        run.push(scan);
        continue;
      }
      if (row !== null) close(resolution());
      row = open(scan, 'counter_gap', row?.id ?? null);
      run = [scan];
    }
    if (row !== null) close(resolution());
  }
  const long = open(replays[0]!, 'replay_burst', null);
  Object.assign(long, { state: 'acknowledged', acknowledged_at: replays[0]!.scanned_at + DAY_MICROS });
  complete(long, replays, 'replay_burst');
  await casesRepo.saveCases(db, cases);
  await casesRepo.insertCaseScans(db, members);
  const inState = (state: string) => fmt(cases.filter((c) => c.state === state).length);
  return {
    longCase: long.id,
    summary: `${fmt(cases.length)} cases of ${fmt(members.length)} flagged scans (${inState('open')} open, ${inState('acknowledged')} acknowledged, ${inState('resolved')} resolved; one of ${fmt(LONG_CASE_SCANS)} replays of ${seededTag(harvested)} over ${LONG_CASE_DAYS} days)`,
  };
}

interface Footprint {
  scans: number;
  table: number;
  indexes: number;
  sessions: number;
  file: number;
}

/** Bytes on disk of the scans (table, indexes) and sessions, and the whole database. */
async function footprint(kind: DatabaseKind, db: Kysely<Database>, storage: Storage): Promise<Footprint> {
  const scans = Number((await sql<{ n: number }>`select count(*) as n from verifications`.execute(db)).rows[0]!.n);
  if (kind === 'postgres') {
    const { rows } = await sql<Record<string, string>>`select pg_relation_size('verifications') as t, pg_indexes_size('verifications') as i,
      pg_total_relation_size('sessions') as s, (select sum(pg_total_relation_size(c.oid)) from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind = 'r') as f`.execute(db);
    const r = rows[0]!;
    return { scans, table: Number(r.t), indexes: Number(r.i), sessions: Number(r.s), file: Number(r.f) };
  }
  const { rows } = await sql<{ name: string; tbl: string; bytes: number }>`select m.name as name, m.tbl_name as tbl, sum(d.pgsize) as bytes
    from dbstat d join sqlite_master m on m.name = d.name where m.tbl_name in ('verifications', 'sessions') group by m.name, m.tbl_name`.execute(db);
  const of = (pick: (r: (typeof rows)[number]) => boolean) => rows.filter(pick).reduce((sum, r) => sum + Number(r.bytes), 0);
  return {
    scans,
    table: of((r) => r.name === 'verifications'),
    indexes: of((r) => r.tbl === 'verifications' && r.name !== 'verifications'),
    sessions: of((r) => r.tbl === 'sessions'),
    file: statSync((storage.target as { path: string }).path).size,
  };
}

interface Read {
  label: string;
  /** The path of the n-th request (rotating over tags or terms where it names one). */
  path: (n: number) => string;
  /** Instead of a request, a function of the platform timed in the bench's process against the same database; answers its items. */
  call?: () => Promise<number>;
}

interface ReadRow {
  label: string;
  example: string;
  p50: number;
  p99: number;
  max: number;
  items: number;
}

/** SAMPLES requests one after another (after 20 of warm-up), as one operator's browser makes them. */
async function sample(server: BenchServer, key: string, read: Read): Promise<ReadRow> {
  const get = async (path: string) => {
    const response = await fetch(server.base + path, { headers: { authorization: `Bearer ${key}`, accept: JSON_API } });
    const body = (await response.json()) as any;
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  const once = async (n: number): Promise<number> => {
    if (read.call) return read.call();
    const body = await get(read.path(n));
    return Array.isArray(body.data) ? body.data.length : (body.meta?.days?.length ?? 1);
  };
  for (let n = 0; n < 20; n++) await once(n + SAMPLES);
  const times: number[] = [];
  let items = 0;
  for (let n = 0; n < SAMPLES; n++) {
    const started = performance.now();
    items += await once(n);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))]!;
  return { label: read.label, example: read.path(1), p50: at(0.5), p99: at(0.99), max: times.at(-1)!, items: items / SAMPLES };
}

/** The path of page `pages` of a newest-first walk from `path`, by following links.next; and how long the walk took. */
async function deepCursor(server: BenchServer, key: string, from: string, pages: number): Promise<{ path: string; seconds: number } | null> {
  let path = from;
  const started = performance.now();
  for (let page = 1; page < pages; page++) {
    const response = await fetch(server.base + path, { headers: { authorization: `Bearer ${key}`, accept: JSON_API } });
    const body = (await response.json()) as any;
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
    if (!body.links?.next) return null;
    path = (body.links.next as string).replace(/^.*\/api\/v1/, '');
  }
  return { path, seconds: (performance.now() - started) / 1000 };
}

interface VerifyRow {
  healthz: number;
  perSecond: number;
  p50: number;
  p99: number;
  genuine: string;
  load: string;
}

const fire = (server: BenchServer, key: string, bodies: string[]) =>
  drive(
    `${server.base}/verifications`,
    CONNECTIONS,
    { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': JSON_API } },
    bodies.map((body) => ({ body })),
  );

/** Fresh genuine taps of the imported chips at 50 connections, against the same server's /healthz. */
async function verify(server: BenchServer, team: BenchTeam, counters: Map<string, number>): Promise<VerifyRow> {
  const healthz = (await loadChecked({ url: `${server.origin}/healthz`, connections: CONNECTIONS, duration: 4 }, 'GET /healthz')).requests.average;
  await fire(server, team.key, freshTaps(team.chips, counters, WARMUP, CONNECTIONS));
  const measured = freshTaps(team.chips, counters, VERIFY, CONNECTIONS);
  const since = Date.now() * 1000;
  const verifyLoad = load();
  const r = await fire(server, team.key, measured);
  const { rows } = await sql<{ n: number }>`select count(*) as n from verifications where team_id = ${team.teamId} and mode = 'production'
    and scanned_at >= ${since} and reason = 'ok'`.execute(team.ctx.db.kysely);
  const row = {
    healthz,
    perSecond: r.requests.total / r.seconds,
    p50: r.latency.p50,
    p99: r.latency.p99,
    genuine: `${Number(rows[0]!.n)}/${VERIFY}${r.non2xx + r.errors ? ` (${r.non2xx + r.errors} errors)` : ''}`,
    load: verifyLoad,
  };
  console.log(`  verify: ${fmt(row.perSecond)}/s (healthz ${fmt(healthz)}/s, load ${row.load}), p99 ${row.p99} ms, genuine ${row.genuine}`);
  return row;
}

interface Phase {
  verify: VerifyRow;
  reads: ReadRow[];
  walk: string;
}

async function measure(server: BenchServer, team: BenchTeam, counters: Map<string, number>, reads: Read[], longCase?: string): Promise<Phase> {
  const verifyRow = await verify(server, team, counters);
  const deep = await deepCursor(server, team.key, '/verifications?page_size=25', PAGES);
  const all = deep ? [...reads, { label: `Scans, page ${fmt(PAGES)} (by its cursor)`, path: () => deep.path }] : [...reads];
  if (longCase !== undefined) {
    const first = `/verifications?case_id=${longCase}&page_size=25`;
    const fiftieth = await deepCursor(server, team.key, first, 50);
    all.push(
      { label: `A case of ${fmt(LONG_CASE_SCANS)} scans (its newest 100 included)`, path: () => `/cases/${longCase}` },
      { label: 'Its scans, first page', path: () => first },
      { label: 'Its scans, page 50 (by its cursor)', path: () => fiftieth!.path },
    );
  }
  const rows: ReadRow[] = [];
  for (const read of all) {
    rows.push(await sample(server, team.key, read));
    const r = rows.at(-1)!;
    console.log(`  ${r.label}: p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms, max ${ms(r.max)} ms (${r.items.toFixed(1)} items)`);
  }
  return {
    verify: verifyRow,
    reads: rows,
    walk: deep ? `${fmt(PAGES)} pages of 25 walked by links.next in ${deep.seconds.toFixed(1)} s` : 'fewer pages than that',
  };
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The daily digest of the team's cases (src/cases/digest-repository.ts), as the mail job computes it for the last 24 hours. */
const digestOf = (db: Kysely<Database>, world: World) => async () => {
  const until = Date.now() * 1000;
  const digest = await caseDigest(db, world, { since: until - DAY_MICROS, until });
  return digest.opened.cases.length + digest.resolved.cases.length;
};

function readsOf(team: BenchTeam): Read[] {
  const today = Date.now();
  const history = (n: number) => seededTag((n * 104_729) % TAGS);
  return [
    { label: 'Overview: stats (30 days)', path: () => '/verifications/stats' },
    { label: 'Overview: live (10 newest, every 5 s)', path: () => '/verifications?page_size=10' },
    { label: 'Scans, first page', path: () => '/verifications?page_size=25' },
    { label: 'Scans, first page, not genuine', path: () => '/verifications?page_size=25&genuine=false' },
    { label: 'Scans, first page, flagged', path: () => '/verifications?page_size=25&flagged=true' },
    { label: "A tag's history (first page)", path: (n) => `/verifications?page_size=25&tag_id=${history(n)}` },
    { label: 'Stats over 366 days', path: () => `/verifications/stats?since=${isoDay(today - 365 * 86_400_000)}&until=${isoDay(today)}` },
    { label: 'Tags, first page', path: () => '/tags?page_size=25' },
    { label: 'Tags, page 10,000', path: () => '/tags?page_size=25&page=10000' },
    { label: 'Tags, `q` = a comment fragment (one tag)', path: (n) => `/tags?page_size=25&q=${String((n * 7_919) % TAGS).padStart(7, '0')}` },
    { label: 'Tags, `q` of two characters (no trigram: every comment read)', path: (n) => `/tags?page_size=25&q=${String(n % 100).padStart(2, '0')}` },
    { label: 'Tags, `q` = a tag id', path: (n) => `/tags?page_size=25&q=${seededTag((n * 15_485_863) % TAGS)}` },
    { label: 'Cases, first page (the Open tab, with the counts per state)', path: () => '/cases?state=open&page_size=25' },
    {
      label: 'Daily digest of cases (`caseDigest`, in the bench process)',
      path: () => 'caseDigest(db, world, the last 24 hours)',
      call: digestOf(team.ctx.db.kysely, { teamId: team.teamId, mode: 'production' }),
    },
  ];
}

interface PruneRow {
  seconds: number;
  scans: number;
  sessions: number;
  during: VerifyRow;
}

/** `tapproof prune` of the year's oldest week (eight days) while fresh taps arrive at 50 connections. */
async function pruneUnderLoad(server: BenchServer, storage: Storage, team: BenchTeam, counters: Map<string, number>): Promise<PruneRow> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...(LAUNCH.tsx ? ['--import', 'tsx', join(ROOT, 'src/main.ts')] : [join(ROOT, 'dist/main.js')]), 'prune', '--days', '358', '--json'],
    {
      cwd: ROOT,
      env: { ...process.env, ...storage.env, TAPPROOF_MASTER_KEY: MASTER, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const done = new Promise<number>((resolve) => child.once('exit', () => resolve((performance.now() - started) / 1000)));
  const during = await verify(server, team, counters);
  const seconds = await done;
  const report = JSON.parse(out.trim().split('\n').pop()!);
  console.log(`  prune: ${fmt(report.verifications)} scans, ${fmt(report.sessions)} sessions in ${seconds.toFixed(1)} s`);
  return { seconds, scans: report.verifications, sessions: report.sessions, during };
}

interface Plan {
  read: string;
  /** Each statement the read issues, with the engine's plan for it. */
  statements: { sql: string; plan: string }[];
  /** Every table reached through an index range or key, no full scan and no sort. */
  ranged: boolean;
}

/** `db`, recording each statement it issues (compiled as it will run) in `into`. */
function recording(db: Kysely<Database>, into: CompiledQuery[]): Kysely<Database> {
  const executor = db.getExecutor();
  return db.withPlugin({
    transformQuery: (args) => {
      into.push(executor.compileQuery(args.node, args.queryId));
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
}

// A full scan, a sort, or (SQLite) a range of the scans' indexes bounded by the world alone: the world's whole history.
const FULL_SCAN: Record<DatabaseKind, RegExp> = {
  sqlite: /\bSCAN\b|TEMP B-TREE|verifications USING (?:COVERING )?INDEX \w+ \(team_id=\? AND mode=\?\)/,
  postgres: /Seq Scan|\bSort\b/,
};

/** The plans of the new reads' statements on the seeded year, as the reads issue them. */
async function plansOf(kind: DatabaseKind, db: Kysely<Database>, world: World, longCase: string): Promise<Plan[]> {
  const page50 = await db
    .selectFrom('case_scans')
    .select(['scanned_at', 'verification_id'])
    .where('case_id', '=', longCase)
    .orderBy('scanned_at', 'desc')
    .orderBy('verification_id', 'desc')
    .offset(49 * 25 - 1)
    .limit(1)
    .executeTakeFirstOrThrow();
  const now = Date.now() * 1000;
  const reads: [string, (db: Kysely<Database>) => Promise<unknown>][] = [
    ['Cases, first page (Open tab, with counts)', (d) => listCases({ db: { kysely: d } } as unknown as Pick<Kernel, 'db'>, world, { state: 'open', size: 25 })],
    ['A case of 10,000 scans', (d) => getCase({ db: { kysely: d } } as unknown as Pick<Kernel, 'db'>, world, longCase)],
    ['Its scans, first page', (d) => worldVerifications(d, world, { caseId: longCase, limit: 26 }).execute()],
    ['Its scans, page 50', (d) => worldVerifications(d, world, { caseId: longCase, limit: 26, before: [page50.scanned_at, page50.verification_id] }).execute()],
    ['Daily digest', (d) => caseDigest(d, world, { since: now - DAY_MICROS, until: now })],
  ];
  const out: Plan[] = [];
  for (const [read, issue] of reads) {
    const issued: CompiledQuery[] = [];
    await issue(recording(db, issued));
    const statements = [];
    for (const q of issued) {
      const explain = kind === 'sqlite' ? `explain query plan ${q.sql}` : `explain (costs off) ${q.sql}`;
      const { rows } = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(explain, [...q.parameters]));
      const plan = rows.map((r) => String(kind === 'sqlite' ? r.detail : r['QUERY PLAN']).trim()).join('; ');
      statements.push({ sql: q.sql, plan });
    }
    out.push({ read, statements, ranged: statements.every((st) => !FULL_SCAN[kind].test(st.plan)) });
  }
  return out;
}

interface KindResult {
  kind: DatabaseKind;
  scans: number;
  empty: Phase;
  year: Phase;
  footprint: Footprint;
  seeding: string[];
  plans: Plan[];
  prune: PruneRow | null;
}

async function run(kind: DatabaseKind): Promise<KindResult> {
  console.log(`\n${kind}: empty database`);
  const storage = await freshStorage(kind);
  const team = await prepareTeam(storage, MASTER, CHIPS);
  const env = { ...storage.env, TAPPROOF_MASTER_KEY: MASTER, TAPPROOF_EMBEDDED_WORKER: '0' };
  const counters = new Map<string, number>();
  const reads = readsOf(team);
  try {
    let server = await startServer(LAUNCH, env);
    const empty = await measure(server, team, counters, reads);
    await server.stop();
    console.log(`${kind}: seeding ${fmt(TAGS)} tags and ${fmt(SCANS[kind])} scans`);
    const { notes: seeding, longCase } = await seed(kind, team.ctx.db.kysely, team, SCANS[kind]);
    const plans = await plansOf(kind, team.ctx.db.kysely, { teamId: team.teamId, mode: 'production' }, longCase);
    for (const p of plans) console.log(`  plan: ${p.read}: ${p.ranged ? 'index ranges only' : 'NOT index ranges only'}`);
    const bytes = await footprint(kind, team.ctx.db.kysely, storage);
    console.log(`  ${fmt(bytes.scans)} scans: ${ms(bytes.table / bytes.scans)} + ${ms(bytes.indexes / bytes.scans)} bytes each (table + indexes)`);
    server = await startServer(LAUNCH, env);
    try {
      console.log(`${kind}: a year of scans`);
      const year = await measure(server, team, counters, reads, longCase);
      const prune = PRUNE ? await pruneUnderLoad(server, storage, team, counters) : null;
      return { kind, scans: SCANS[kind], empty, year, footprint: bytes, seeding, plans, prune };
    } finally {
      await server.stop();
    }
  } finally {
    await team.ctx.db.close();
    if (KEEP) console.log(`kept: ${JSON.stringify(storage.env)}`);
    else await storage.drop();
  }
}

if (!LAUNCH.tsx) execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
const results: KindResult[] = [];
for (const kind of KINDS) results.push(await run(kind));

/** The list pages' p99 target at one connection (bench/README.md, Platform core), held by the case and digest reads too. */
const READ_P99 = 10;
/** The reads the cases brought, by the start of their labels. */
const NEW_READS = ['Cases, first page', 'A case of', 'Its scans, first page', 'Its scans, page 50', 'Daily digest'];
const pct = (after: number, before: number) => `${after >= before ? '+' : ''}${(((after - before) / before) * 100).toFixed(1)} %`;
const section = (r: KindResult) => {
  const f = r.footprint;
  const e = r.empty.verify;
  const y = r.year.verify;
  const ratio = (v: VerifyRow) => v.perSecond / v.healthz;
  const within = ratio(y) >= ratio(e) * 0.9;
  return [
    `## ${ENGINE[r.kind]}: ${fmt(TAGS)} tags, ${fmt(r.scans)} scans over 366 days`,
    '',
    ...r.seeding.map((s) => `- Seeding: ${s}`),
    `- On disk: ${fmt(f.scans)} scans; ${ms(f.table / f.scans)} bytes per scan in the table + ${ms(f.indexes / f.scans)} in its indexes = **${ms((f.table + f.indexes) / f.scans)} bytes per stored scan**; sessions ${ms(f.sessions / f.scans)} bytes per scan; ${r.kind === 'sqlite' ? 'database file' : 'all tables with their indexes'} ${(f.file / 2 ** 30).toFixed(2)} GiB`,
    `- Scans walk: ${r.empty.walk} on the empty database; ${r.year.walk} on the year.`,
    '',
    '| | empty | a year | change |',
    '|---|--:|--:|--:|',
    `| \`GET /healthz\` /s (the ceiling) | ${fmt(e.healthz)} | ${fmt(y.healthz)} | ${pct(y.healthz, e.healthz)} |`,
    `| \`POST /verifications\` /s, 50 connections (load) | ${fmt(e.perSecond)} (${e.load}) | ${fmt(y.perSecond)} (${y.load}) | ${pct(y.perSecond, e.perSecond)} |`,
    `| … as a share of \`/healthz\` | ${ratio(e).toFixed(3)} | ${ratio(y).toFixed(3)} | ${pct(ratio(y), ratio(e))} (target: within 10 %: ${within ? 'met' : '**missed**'}) |`,
    `| … p50 / p99 ms | ${e.p50} / ${e.p99} | ${y.p50} / ${y.p99} | |`,
    `| … genuine | ${e.genuine} | ${y.genuine} | |`,
    '',
    `Reads, ${SAMPLES} requests one after another each (ms; "items": rows per answer on average):`,
    '',
    '| Request | empty p50 | empty p99 | year p50 | year p99 | year max | items (year) |',
    '|---|--:|--:|--:|--:|--:|--:|',
    ...r.year.reads.map((y) => {
      const e = r.empty.reads.find((x) => x.label === y.label);
      return `| ${y.label}: \`${y.example.startsWith('/') ? 'GET ' : ''}${y.example}\` | ${e ? ms(e.p50) : '—'} | ${e ? ms(e.p99) : '—'} | ${ms(y.p50)} | ${ms(y.p99)} | ${ms(y.max)} | ${y.items.toFixed(1)} |`;
    }),
    '',
    `The case and digest reads against the targets the year holds for its reads (one index range on the year; p99 ≤ ${READ_P99} ms at one connection, the list pages' target of the platform bench):`,
    '',
    ...NEW_READS.flatMap((prefix) => {
      const y = r.year.reads.find((x) => x.label.startsWith(prefix));
      const plan = r.plans.find((p) => p.read.startsWith(prefix.replace(' (its newest 100 included)', '')));
      if (!y) return [];
      return [
        `- ${y.label}: p99 ${ms(y.p99)} ms (${y.p99 <= READ_P99 ? 'met' : '**missed**'}); ${plan ? (plan.ranged ? 'index ranges only (met)' : '**not only index ranges** (missed)') : 'plan not taken'}`,
      ];
    }),
    '',
    `Their plans on the year (${r.kind === 'sqlite' ? '`explain query plan`' : '`explain (costs off)`'}, each statement the read issues):`,
    '',
    ...r.plans.flatMap((p) => p.statements.map((st) => `- ${p.read}: \`${st.plan}\``)),
    '',
    ...(r.prune
      ? [
          `Pruning the oldest week (\`tapproof prune --days 358\`, batches of 1,000) while fresh taps arrive at 50 connections: ${fmt(r.prune.scans)} scans and ${fmt(r.prune.sessions)} sessions in ${r.prune.seconds.toFixed(1)} s (${fmt(r.prune.scans / r.prune.seconds)} scans/s); verify meanwhile ${fmt(r.prune.during.perSecond)}/s (load ${r.prune.during.load}), p50 ${r.prune.during.p50} ms, p99 ${r.prune.during.p99} ms, genuine ${r.prune.during.genuine}.`,
          '',
        ]
      : []),
  ];
};
// Each engine's section carries its own run (machine, date, command): a run of one engine replaces that
// engine's section and keeps the other's, so the two can run apart (each takes the machine to itself).
const PATH = join(ROOT, 'bench/RESULTS-year.md');
const sectionOf = (r: KindResult) =>
  [
    ...section(r).slice(0, 2),
    ...machineLines(),
    `- \`npx tsx bench/year.ts --db ${r.kind} --tags ${TAGS} --${r.kind}-scans ${r.scans} --verify ${VERIFY} --samples ${SAMPLES}${PAGES === 10_000 ? '' : ` --pages ${PAGES}`}${PRUNE ? '' : ' --no-prune'}\`; server \`${describeLaunch(LAUNCH)} serve\` on loopback (LOG_LEVEL=warn, rate limit raised, no embedded worker), started afresh for each phase.`,
    ...section(r).slice(2),
  ].join('\n');
const kept = new Map<string, string>();
if (existsSync(PATH))
  for (const part of readFileSync(PATH, 'utf8')
    .split(/^(?=## )/m)
    .slice(1))
    kept.set(part.startsWith('## SQLite') ? 'sqlite' : 'postgres', part.trimEnd());
for (const r of results) kept.set(r.kind, sectionOf(r));
const report = [
  '# A year of scans',
  '',
  `Each phase: \`/healthz\` for 4 s at 50 connections, ${fmt(WARMUP)} warm-up taps, the measured fresh taps of ${CHIPS} imported chips at 50 connections, then the reads. The year is seeded between the phases with the server stopped: tags with chips, then scans in time order (one in 50 replayed, one in 200 bad CMAC, one in 500 bad PICC data, one in 1,000 flagged with a counter gap; countries in 8 groups, one unknown), a session per genuine scan, the per-day counts.`,
  '',
  ...(['sqlite', 'postgres'] as const).flatMap((kind) => (kept.has(kind) ? [kept.get(kind)!, ''] : [])),
].join('\n');
writeFileSync(PATH, report);
console.log('\nwrote bench/RESULTS-year.md');
