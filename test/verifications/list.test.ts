// GET /verifications (keyset pages, filters) and GET /verifications/stats (read from scan_counts),
// with the verifications seeded as the verify path stores them: rows and their counts in one transaction.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql, type Compilable } from 'kysely';
import { newId } from '../../src/ids.js';
import { worldVerifications, type VerificationRow } from '../../src/verifications/repository.js';
import { addScanCounts, findScanCounts, foldScanCounts } from '../../src/verifications/scan-counts.js';
import { isoMicros } from '../../src/time.js';
import { buildApp } from '../../src/app.js';
import { createContext } from '../../src/context.js';
import { newestFirst, scanRow, storeScans } from './stored-scans.js';
import { backfill as backfillFlaggedCounts } from '../../src/db/migrations/0033_flagged_counts.js';
import { DATABASES, call, startServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { assertBadParameter, walk } from '../http/query.js';

const REASONS = ['ok', 'replayed', 'bad_cmac', 'bad_picc_data', 'uid_mismatch'] as const;
const DAY = 86_400_000_000;
/** 2026-01-01T00:00:00Z */
const START = Date.UTC(2026, 0, 1) * 1000;

for (const kind of DATABASES) {
  describe(`GET /verifications (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    let rows: VerificationRow[];
    const tags = [newId('tag'), newId('tag'), newId('tag')];
    const list = (query = '', key = world.sandbox.key) => call(server, 'GET', `/verifications${query ? '?' + query : ''}`, { key });
    const get = (path: string) => call(server, 'GET', path.replace(server.ctx.config.apiPrefix, ''), { key: world.sandbox.key });

    before(async () => {
      server = await startServer(kind);
      world = await server.seedTeam();
      // 60 scans over 10 days, every fourth pair at the same microsecond (the id breaks the tie).
      rows = Array.from({ length: 60 }, (_, i) =>
        scanRow(
          world,
          'sandbox',
          tags[i % 3]!,
          START + Math.floor(i / 2) * (DAY / 6) + (i % 4 === 0 ? 0 : i % 2),
          REASONS[i % 5]!,
          i % 3 === 0 ? null : i % 3 === 1 ? 'DE' : 'FR',
        ),
      );
      await storeScans(server, rows.slice(0, 30));
      await storeScans(server, rows.slice(30));
      // Elsewhere: the production world and another team.
      await storeScans(server, [scanRow(world, 'production', tags[0]!, START, 'ok', 'DE')]);
      const other = await server.seedTeam();
      await storeScans(server, [scanRow(other, 'sandbox', tags[0]!, START, 'ok', 'DE')]);
    });
    after(() => server.close());

    test('newest first, 25 a page, links.next to the rest; the last page links nowhere', async () => {
      const first = await list();
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(Object.keys(first.body).sort(), ['data', 'links']);
      assert.deepEqual(
        first.body.data.map((v: any) => v.id),
        newestFirst(rows).slice(0, 25),
      );
      const newest = rows.find((r) => r.id === first.body.data[0].id)!;
      assert.deepEqual(first.body.data[0], {
        type: 'verifications',
        id: newest.id,
        attributes: {
          genuine: newest.genuine === 1,
          reason: newest.reason,
          verification_id: `VRF_${newest.id.slice('vrf_'.length)}`,
          tag_id: newest.tag_id,
          read_counter: null,
          tamper: null,
          session_id: null,
          scanned_at: isoMicros(newest.scanned_at),
          country: newest.country,
          client_ip: newest.client_ip,
          signals: [],
        },
      });
      assert.match(first.body.links.next, /^\/api\/v1\/verifications\?cursor=[A-Za-z0-9_-]+$/);
      const { ids, pages } = await walk(get, '/verifications');
      assert.deepEqual(ids, newestFirst(rows));
      assert.equal(pages, 3);
    });

    test('page_size 1 and 100 are served, walks see every row once; 0 and 101 are refused', async () => {
      assert.equal((await list('page_size=1')).body.data.length, 1);
      assert.equal((await list('page_size=100')).body.data.length, 60);
      assert.equal((await list('page_size=100')).body.links.next, null);
      // Exactly a page's worth: no empty page follows.
      assert.equal((await list('page_size=60')).body.links.next, null);
      const { ids, pages } = await walk(get, '/verifications?page_size=7');
      assert.deepEqual(ids, newestFirst(rows));
      assert.equal(pages, 9);
      for (const size of ['0', '101', '-1', '2.5', 'ten', '', '00001000']) assertBadParameter(await list(`page_size=${size}`), 'page_size');
    });

    test('filters: tag_id, genuine, reason, since (inclusive), until (exclusive), combined, with paging', async () => {
      const expect = async (query: string, pick: (r: VerificationRow) => boolean) => {
        const { ids } = await walk(get, `/verifications?page_size=4&${query}`);
        assert.deepEqual(ids, newestFirst(rows.filter(pick)), query);
      };
      await expect(`tag_id=${tags[1]}`, (r) => r.tag_id === tags[1]);
      await expect('genuine=true', (r) => r.genuine === 1);
      await expect('genuine=false', (r) => r.genuine === 0);
      for (const reason of REASONS) await expect(`reason=${reason}`, (r) => r.reason === reason);
      const since = rows[20]!.scanned_at;
      const until = rows[41]!.scanned_at;
      await expect(`since=${encodeURIComponent(isoMicros(since))}`, (r) => r.scanned_at >= since);
      await expect(`until=${encodeURIComponent(isoMicros(until))}`, (r) => r.scanned_at < until);
      await expect('since=2026-01-03&until=2026-01-05', (r) => r.scanned_at >= START + 2 * DAY && r.scanned_at < START + 4 * DAY);
      await expect('since=2026-01-03T01:00:00%2B01:00', (r) => r.scanned_at >= START + 2 * DAY);
      await expect(`tag_id=${tags[0]}&genuine=false&since=2026-01-02`, (r) => r.tag_id === tags[0] && r.genuine === 0 && r.scanned_at >= START + DAY);
      await expect(`tag_id=${tags[2]}&reason=bad_cmac`, (r) => r.tag_id === tags[2] && r.reason === 'bad_cmac');
      await expect('genuine=false&reason=replayed&until=2026-01-08', (r) => r.reason === 'replayed' && r.scanned_at < START + 7 * DAY);
      await expect('genuine=true&reason=ok', (r) => r.genuine === 1);
      await expect('genuine=true&reason=bad_cmac', () => false);
      await expect('genuine=false&reason=ok', () => false);
      await expect('since=2026-02-01', () => false);
    });

    test("another world's tag, another team's key, the other mode's key: nothing of the owner's", async () => {
      assert.deepEqual((await list(`tag_id=${newId('tag')}`)).body, { data: [], links: { next: null } });
      const other = await server.seedTeam();
      assert.deepEqual((await list('', other.sandbox.key)).body, { data: [], links: { next: null } });
      assert.deepEqual((await list(`tag_id=${tags[0]}`, other.sandbox.key)).body, { data: [], links: { next: null } });
      const production = await list('', world.production.key);
      assert.equal(production.body.data.length, 1);
      assert.equal(production.body.data[0].attributes.scanned_at, isoMicros(START));
      assert.ok(!rows.some((r) => r.id === production.body.data[0].id));
    });

    test('a cursor is honoured only by the list, world and query that gave it out', async () => {
      const cursorOf = (next: string) => new URL(next, server.origin).searchParams.get('cursor')!;
      const next = (await list('page_size=2')).body.links.next as string;
      assert.equal((await get(next)).status, 200);
      // Another team's walk, its links.next with this team's key: refused, not this team's rows.
      const other = await server.seedTeam();
      await storeScans(server, [scanRow(other, 'sandbox', tags[0]!, START + 1, 'ok', 'DE'), scanRow(other, 'sandbox', tags[0]!, START + 2, 'ok', 'DE')]);
      const theirs = (await list('page_size=1', other.sandbox.key)).body.links.next as string;
      assert.equal((await call(server, 'GET', theirs.replace(server.ctx.config.apiPrefix, ''), { key: other.sandbox.key })).status, 200);
      assertBadParameter(await get(theirs), 'cursor');
      // The other mode of the same team.
      assertBadParameter(await list(`page_size=2&cursor=${cursorOf(next)}`, world.production.key), 'cursor');
      // Other filters or page size than the cursor was given out for.
      const genuine = (await list('page_size=2&genuine=true')).body.links.next as string;
      assert.equal((await get(genuine)).status, 200);
      assertBadParameter(await get(genuine.replace('genuine=true', 'genuine=false')), 'cursor');
      for (const query of ['page_size=2', 'page_size=3&genuine=true', 'page_size=2&genuine=true&reason=ok', `page_size=2&genuine=true&tag_id=${tags[0]}`])
        assertBadParameter(await list(`${query}&cursor=${cursorOf(genuine)}`), 'cursor');
      // The order of the parameters is not part of the query.
      assert.equal((await list(`genuine=true&page_size=2&cursor=${cursorOf(genuine)}`)).status, 200);
      // Positions written by hand (the unsigned format), and a signed cursor with its position altered.
      const forged = (position: unknown) => Buffer.from(JSON.stringify(position)).toString('base64url');
      const newest = newestFirst(rows)[0]!;
      for (const position of [
        [9007199254740991, newest],
        [0, newest],
        [rows[0]!.scanned_at, 'vrf_0000000000000000000000'],
      ])
        assertBadParameter(await list(`page_size=2&cursor=${forged(position)}`), 'cursor');
      const signed = cursorOf(next);
      assertBadParameter(await list(`page_size=2&cursor=${signed.slice(0, 22)}${forged([9007199254740991, newest])}`), 'cursor');
      // An altered tag, and the same tag spelt otherwise (the last of its 22 characters carries 4 spare bits).
      assertBadParameter(await list(`page_size=2&cursor=${signed[0] === 'A' ? 'B' : 'A'}${signed.slice(1)}`), 'cursor');
      assertBadParameter(await list(`page_size=2&cursor=${signed.slice(0, 21)}${String.fromCharCode(signed.charCodeAt(21) + 1)}${signed.slice(22)}`), 'cursor');
    });

    test('another server of the same deployment honours the cursors this one gave out', async () => {
      // A second process: its own context and Fastify app on the same database, as behind a balancer.
      const db = server.storage.open();
      const ctx = createContext(db, server.ctx.config, server.clock);
      const app = await buildApp(ctx, { logger: false });
      await app.listen({ port: 0, host: '127.0.0.1' });
      try {
        const peer = { base: `http://127.0.0.1:${(app.server.address() as { port: number }).port}${server.ctx.config.apiPrefix}` };
        const ids: string[] = [];
        for (let next: string | null = '/verifications?page_size=7&genuine=false', turn = 0; next !== null; turn++) {
          const response = await call(turn % 2 ? peer : server, 'GET', next.replace(server.ctx.config.apiPrefix, ''), { key: world.sandbox.key });
          assert.equal(response.status, 200, response.text);
          ids.push(...response.body.data.map((v: { id: string }) => v.id));
          next = response.body.links.next;
        }
        assert.deepEqual(ids, newestFirst(rows.filter((r) => r.genuine === 0)));
      } finally {
        await app.close();
        await db.close();
      }
    });

    test('bad values → 400 naming the parameter', async () => {
      const bad: [string, string][] = [
        ['tag_id=nope', 'tag_id'],
        ['tag_id=%00', 'tag_id'],
        [`tag_id=${tags[0]}&tag_id=${tags[1]}`, 'tag_id'],
        ['genuine=yes', 'genuine'],
        ['genuine=1', 'genuine'],
        ['reason=fine', 'reason'],
        ['since=yesterday', 'since'],
        ['since=2026-02-30', 'since'],
        ['since=2026-01-01T12:00:00', 'since'],
        ['since=2026-01-01T24:00:00Z', 'since'],
        ['until=2026-13-01', 'until'],
        ['until=1969-12-31', 'until'],
        ['since=2026-01-05&until=2026-01-04', 'until'],
        ['cursor=garbage!', 'cursor'],
        ['cursor=', 'cursor'],
        [`cursor=${'A'.repeat(40)}`, 'cursor'],
        [`cursor=${Buffer.from('[1,"x"]').toString('base64url')}`, 'cursor'],
        [`cursor=${Buffer.from('[-1,"vrf_0000000000000000000000"]').toString('base64url')}`, 'cursor'],
        [`cursor=${Buffer.from('{"a":1}').toString('base64url')}`, 'cursor'],
        ['sort=-scanned_at', 'sort'],
        ['page=2', 'page'],
      ];
      for (const [query, parameter] of bad) assertBadParameter(await list(query), parameter);
      // The last moment of a valid window and a fraction to the microsecond are fine.
      assert.equal((await list('since=2026-01-01T00:00:00.000001Z&until=2026-12-31T23:59:59.999999Z')).status, 200);
      assert.equal((await list('since=2026-01-04&until=2026-01-04')).body.data.length, 0);
    });
  });

  describe(`GET /verifications/stats (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    const stats = (query = '', key = world.sandbox.key) => call(server, 'GET', `/verifications/stats${query ? '?' + query : ''}`, { key });
    const zeros = { ok: 0, replayed: 0, bad_cmac: 0, bad_picc_data: 0, uid_mismatch: 0 };
    const unflagged = { flagged: 0, by_signal: { counter_gap: 0, country_jump: 0, replay_burst: 0, tamper_opened: 0, tamper_open: 0 } };

    before(async () => {
      server = await startServer(kind);
      world = await server.seedTeam();
      const tag = newId('tag');
      // Day 1: 3 ok DE, 1 bad_cmac unknown country; day 3: 2 replayed FR, 1 ok DE (in two batches, the last second of the day).
      await storeScans(server, [
        scanRow(world, 'sandbox', tag, START + 1, 'ok', 'DE'),
        scanRow(world, 'sandbox', tag, START + 2, 'ok', 'DE'),
        scanRow(world, 'sandbox', tag, START + 3, 'bad_cmac', null),
      ]);
      await storeScans(server, [scanRow(world, 'sandbox', tag, START + DAY - 1, 'ok', 'DE')]);
      await storeScans(server, [
        scanRow(world, 'sandbox', tag, START + 2 * DAY, 'replayed', 'FR'),
        scanRow(world, 'sandbox', tag, START + 3 * DAY - 1, 'replayed', 'FR'),
      ]);
      await storeScans(server, [scanRow(world, 'sandbox', tag, START + 2 * DAY + 5, 'ok', 'DE')]);
      await storeScans(server, [scanRow(world, 'production', tag, START, 'ok', 'DE')]);
    });
    after(() => server.close());

    test('counts per UTC day by reason and by country, every day of the window, and totals', async () => {
      const response = await stats('since=2026-01-01&until=2026-01-04');
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, {
        meta: {
          since: '2026-01-01',
          until: '2026-01-04',
          totals: {
            count: 7,
            ...unflagged,
            by_reason: { ...zeros, ok: 4, replayed: 2, bad_cmac: 1 },
            by_country: [
              { country: 'DE', count: 4, flagged: 0 },
              { country: 'FR', count: 2, flagged: 0 },
              { country: null, count: 1, flagged: 0 },
            ],
          },
          days: [
            {
              day: '2026-01-01',
              count: 4,
              ...unflagged,
              by_reason: { ...zeros, ok: 3, bad_cmac: 1 },
              by_country: [
                { country: 'DE', count: 3, flagged: 0 },
                { country: null, count: 1, flagged: 0 },
              ],
            },
            { day: '2026-01-02', count: 0, by_reason: zeros, by_country: [], ...unflagged },
            {
              day: '2026-01-03',
              count: 3,
              ...unflagged,
              by_reason: { ...zeros, ok: 1, replayed: 2 },
              by_country: [
                { country: 'FR', count: 2, flagged: 0 },
                { country: 'DE', count: 1, flagged: 0 },
              ],
            },
            { day: '2026-01-04', count: 0, by_reason: zeros, by_country: [], ...unflagged },
          ],
        },
      });
      const oneDay = await stats('since=2026-01-03&until=2026-01-03');
      assert.equal(oneDay.body.meta.totals.count, 3);
      assert.equal(oneDay.body.meta.days.length, 1);
    });

    test('flagged scans per country: of each country’s scans, those with a signal, per day and over the window', async () => {
      const flagged = await server.seedTeam();
      const stats = (query: string) => call(server, 'GET', `/verifications/stats?${query}`, { key: flagged.sandbox.key });
      const tag = newId('tag');
      const at = (day: number, second: number) => START + day * DAY + second * 1_000_000;
      // Day 1 in two batches (the second adds to the first's counts): DE 3 (2 flagged), FR 1 replay flagged,
      // an unknown country's flagged scan; day 2: US 2 (1 flagged), DE 1 unflagged; production's flagged DE apart.
      await storeScans(server, [
        scanRow(flagged, 'sandbox', tag, at(0, 1), 'ok', 'DE', 'counter_gap'),
        scanRow(flagged, 'sandbox', tag, at(0, 2), 'ok', 'DE'),
        scanRow(flagged, 'sandbox', tag, at(0, 3), 'replayed', 'FR', 'replay_burst'),
      ]);
      await storeScans(server, [
        scanRow(flagged, 'sandbox', tag, at(0, 4), 'ok', 'DE', 'counter_gap,country_jump'),
        scanRow(flagged, 'sandbox', tag, at(0, 5), 'ok', null, 'counter_gap'),
      ]);
      await storeScans(server, [
        scanRow(flagged, 'sandbox', tag, at(1, 1), 'ok', 'US', 'country_jump'),
        scanRow(flagged, 'sandbox', tag, at(1, 2), 'ok', 'US'),
        scanRow(flagged, 'sandbox', tag, at(1, 3), 'ok', 'DE'),
      ]);
      await storeScans(server, [scanRow(flagged, 'production', tag, at(0, 1), 'ok', 'DE', 'counter_gap')]);

      const window = await stats('since=2026-01-01&until=2026-01-02');
      assert.equal(window.status, 200, window.text);
      const { totals, days } = window.body.meta;
      assert.equal(totals.flagged, 5);
      assert.deepEqual(totals.by_country, [
        { country: 'DE', count: 4, flagged: 2 },
        { country: 'US', count: 2, flagged: 1 },
        { country: null, count: 1, flagged: 1 },
        { country: 'FR', count: 1, flagged: 1 },
      ]);
      assert.deepEqual(
        days.map((d: { day: string; by_country: unknown }) => [d.day, d.by_country]),
        [
          [
            '2026-01-01',
            [
              { country: 'DE', count: 3, flagged: 2 },
              { country: null, count: 1, flagged: 1 },
              { country: 'FR', count: 1, flagged: 1 },
            ],
          ],
          [
            '2026-01-02',
            [
              { country: 'US', count: 2, flagged: 1 },
              { country: 'DE', count: 1, flagged: 0 },
            ],
          ],
        ],
      );
      // One day of the window; the other mode; a window with none.
      assert.deepEqual((await stats('since=2026-01-02&until=2026-01-02')).body.meta.totals.by_country, days[1].by_country);
      const production = await call(server, 'GET', '/verifications/stats?since=2026-01-01&until=2026-01-02', { key: flagged.production.key });
      assert.deepEqual(production.body.meta.totals.by_country, [{ country: 'DE', count: 1, flagged: 1 }]);
      assert.deepEqual((await stats('since=2026-01-03&until=2026-01-03')).body.meta.totals.by_country, []);

      // The migration's count of flagged scans stored before it gives the same numbers, every world's.
      const before = await stats('since=2026-01-01&until=2026-01-02');
      const { db } = server.ctx;
      await db.kysely.deleteFrom('flagged_counts').execute();
      await backfillFlaggedCounts(db.kysely, db.dialect);
      assert.deepEqual((await stats('since=2026-01-01&until=2026-01-02')).body, before.body);
      assert.deepEqual(
        (await call(server, 'GET', '/verifications/stats?since=2026-01-01&until=2026-01-02', { key: flagged.production.key })).body,
        production.body,
      );
    });

    test('the default window is the 30 days up to today (the server clock)', async () => {
      const response = await stats();
      assert.equal(response.status, 200);
      assert.equal(response.body.meta.days.length, 30);
      const today = new Date(server.ctx.clock.nowMicros() / 1000).toISOString().slice(0, 10);
      assert.equal(response.body.meta.until, today);
      assert.equal(response.body.meta.days.at(-1).day, today);
      assert.equal((await stats('until=2026-01-30')).body.meta.totals.count, 7);
      assert.equal((await stats('until=2026-01-30')).body.meta.since, '2026-01-01');
      assert.equal((await stats('until=2026-01-31')).body.meta.totals.count, 3);
      assert.equal((await stats('until=2026-02-02')).body.meta.totals.count, 0);
    });

    test('366 days are served, 367 are refused; bad days and unknown parameters → 400 naming them', async () => {
      assert.equal((await stats('since=2026-01-01&until=2027-01-01')).body.meta.days.length, 366);
      assertBadParameter(await stats('since=2026-01-01&until=2027-01-02'), 'since');
      for (const [query, parameter] of [
        ['since=2026-01-01T00:00:00Z', 'since'],
        ['since=2026-1-1', 'since'],
        ['until=2026-02-29', 'until'],
        ['since=2026-01-03&until=2026-01-02', 'until'],
        ['page_size=10', 'page_size'],
        ['since=2026-01-01&since=2026-01-02', 'since'],
      ]) {
        assertBadParameter(await stats(query), parameter!);
      }
    });

    test('the other mode and another team see their own counts only', async () => {
      assert.equal((await stats('since=2026-01-01&until=2026-01-04', world.production.key)).body.meta.totals.count, 1);
      const other = await server.seedTeam();
      assert.deepEqual((await stats('since=2026-01-01&until=2026-01-04', other.sandbox.key)).body.meta.totals, {
        count: 0,
        by_reason: zeros,
        by_country: [],
        ...unflagged,
      });
    });
  });

  describe(`scan counts and the list indexes (${kind})`, () => {
    let server: TestServer;
    before(async () => (server = await startServer(kind)));
    after(() => server.close());

    test('foldScanCounts folds a batch into one row per world, UTC day, reason and country', () => {
      const a: SeededTeam = { teamId: 'team_a', sandbox: { id: '', key: '' }, production: { id: '', key: '' } };
      const folded = foldScanCounts([
        scanRow(a, 'sandbox', 't', START + DAY - 1, 'ok', 'DE'),
        scanRow(a, 'sandbox', 't', START, 'ok', 'DE'),
        scanRow(a, 'sandbox', 't', START + DAY, 'ok', 'DE'),
        scanRow(a, 'production', 't', START, 'ok', 'DE'),
        scanRow(a, 'sandbox', 't', START, 'ok', null),
        scanRow(a, 'sandbox', 't', START, 'replayed', 'DE'),
      ]);
      assert.deepEqual(folded, [
        { team_id: 'team_a', mode: 'production', day: '2026-01-01', reason: 'ok', country: 'DE', count: 1 },
        { team_id: 'team_a', mode: 'sandbox', day: '2026-01-01', reason: 'ok', country: '', count: 1 },
        { team_id: 'team_a', mode: 'sandbox', day: '2026-01-01', reason: 'ok', country: 'DE', count: 2 },
        { team_id: 'team_a', mode: 'sandbox', day: '2026-01-01', reason: 'replayed', country: 'DE', count: 1 },
        { team_id: 'team_a', mode: 'sandbox', day: '2026-01-02', reason: 'ok', country: 'DE', count: 1 },
      ]);
      assert.deepEqual(foldScanCounts([]), []);
    });

    test('addScanCounts adds to stored counts, across batches and concurrent transactions', async () => {
      const world = await server.seedTeam();
      const batch = [scanRow(world, 'sandbox', 't', START, 'ok', 'DE'), scanRow(world, 'sandbox', 't', START, 'ok', null)];
      await addScanCounts(server.ctx.db.kysely, foldScanCounts(batch));
      await Promise.all(Array.from({ length: 5 }, () => server.ctx.db.kysely.transaction().execute((trx) => addScanCounts(trx, foldScanCounts(batch)))));
      await addScanCounts(server.ctx.db.kysely, []);
      const counts = await findScanCounts(server.ctx.db.kysely, { teamId: world.teamId, mode: 'sandbox' }, '2026-01-01', '2026-01-01');
      assert.deepEqual(counts.map((c) => [c.country, c.count]).sort(), [
        ['', 6],
        ['DE', 6],
      ]);
    });

    /**
     * The planner's words for a query. On PostgreSQL sequential scans and sorts are priced out (its tables are
     * near empty here) unless `analyzed`: then it plans with the statistics of the table as it is.
     */
    async function plan(query: Compilable & { explain(): Promise<Record<string, unknown>[]> }, analyzed = false): Promise<string> {
      const db = server.ctx.db;
      if (kind === 'sqlite') {
        const compiled = query.compile();
        return JSON.stringify((await db.kysely.executeQuery(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]))).rows);
      }
      return db.kysely.transaction().execute(async (trx) => {
        if (!analyzed) {
          await sql`set local enable_seqscan = off`.execute(trx);
          await sql`set local enable_sort = off`.execute(trx);
        }
        return JSON.stringify(await query.explain());
      });
    }
    /** A sort node of either engine: SQLite's temporary B-tree, a PostgreSQL Sort (not a Merge Append's "Sort Key"). */
    const SORT = /TEMP B-TREE|(?:"|->\s+)(?:Incremental )?Sort\s+\(/;
    const world = { teamId: 'team_x', mode: 'sandbox' as const };
    const older = [START, 'vrf_0000000000000000000000'] as const;
    const indexes = (text: string) => [...new Set(text.match(/verifications_\w+_time/g))].sort();

    test("a world's walk and a tag's walk follow their indexes, without a sort", async () => {
      for (const filter of [{ limit: 26 }, { limit: 26, before: older, since: START - DAY }]) {
        const text = await plan(worldVerifications(server.ctx.db.kysely, world, filter));
        assert.deepEqual(indexes(text), ['verifications_world_time'], text);
        assert.doesNotMatch(text, SORT);
      }
      // A tag's first page too: SQLite, without statistics, would rather walk the world's index.
      for (const filter of [
        { tagId: 'tag_a', limit: 26 },
        { tagId: 'tag_a', limit: 26, before: older },
      ]) {
        const text = await plan(worldVerifications(server.ctx.db.kysely, world, filter));
        assert.deepEqual(indexes(text), ['verifications_tag_time'], text);
        assert.doesNotMatch(text, SORT);
      }
    });

    test('a walk of one reason (reason=, genuine=true) is one range of the reason index, without a sort', async () => {
      for (const filter of [
        { limit: 26, reasons: ['bad_cmac'] },
        { limit: 26, reasons: ['ok'] },
        { limit: 26, reasons: ['bad_cmac'], before: older, since: START - DAY, until: START + DAY },
      ]) {
        const text = await plan(worldVerifications(server.ctx.db.kysely, world, filter));
        assert.deepEqual(indexes(text), ['verifications_reason_time'], text);
        assert.match(text, kind === 'sqlite' ? /reason=\?/ : /reason = /);
        assert.doesNotMatch(text, SORT);
      }
    });

    test('genuine=false merges the ranges of the refused reasons in order, without a sort', async () => {
      const refused = REASONS.filter((r) => r !== 'ok');
      for (const filter of [
        { limit: 26, reasons: refused },
        { limit: 26, reasons: refused, before: older },
      ]) {
        const text = await plan(worldVerifications(server.ctx.db.kysely, world, filter));
        assert.deepEqual(indexes(text), ['verifications_reason_time'], text);
        assert.equal(text.match(/verifications_reason_time/g)?.length, refused.length, text);
        assert.match(text, kind === 'sqlite' ? /MERGE \(UNION ALL\)/ : /Merge Append/);
        assert.doesNotMatch(text, SORT);
      }
    });

    test("a busy world's statistics change none of it: no reason's range is read whole and sorted", async () => {
      const busy = { teamId: 'team_busy', sandbox: { id: '', key: '' }, production: { id: '', key: '' } };
      const reasonOf = (i: number) => (i % 10 === 0 ? 'replayed' : i % 97 === 0 ? 'bad_cmac' : 'ok');
      await storeScans(
        server,
        Array.from({ length: 3000 }, (_, i) => scanRow(busy, 'sandbox', `tag_busy${i % 50}`, START + i * 1000, reasonOf(i), null)),
      );
      if (kind === 'postgres') await sql`analyze verifications`.execute(server.ctx.db.kysely);
      const refused = REASONS.filter((r) => r !== 'ok');
      for (const reasons of [refused, ['replayed'], ['bad_cmac']]) {
        const text = await plan(worldVerifications(server.ctx.db.kysely, { teamId: busy.teamId, mode: 'sandbox' }, { limit: 26, reasons }), true);
        assert.deepEqual(indexes(text), ['verifications_reason_time'], text);
        assert.doesNotMatch(text, SORT);
      }
    });

    test('flagged=true and signal=… walk the flagged index, reasons read from its rows, without a sort; a busy world too', async () => {
      const flaggedOnly = (text: string) => {
        assert.match(text, /verifications_flagged/, text);
        assert.doesNotMatch(text, /verifications_\w+_time/, text);
        assert.doesNotMatch(text, SORT, text);
      };
      const refused = REASONS.filter((r) => r !== 'ok');
      for (const filter of [
        { limit: 26, flagged: true },
        { limit: 26, signal: 'counter_gap' as const },
        { limit: 26, flagged: true, reasons: ['ok'] },
        { limit: 26, flagged: true, reasons: refused },
        { limit: 26, flagged: true, before: older, since: START - DAY },
      ])
        flaggedOnly(await plan(worldVerifications(server.ctx.db.kysely, world, filter)));
      const busy = { teamId: 'team_flaggedbusy', sandbox: { id: '', key: '' }, production: { id: '', key: '' } };
      await storeScans(
        server,
        Array.from({ length: 3000 }, (_, i) => scanRow(busy, 'sandbox', `tag_fb${i % 50}`, START + i * 1000, 'ok', null, i % 100 === 0 ? 'counter_gap' : null)),
      );
      if (kind === 'postgres') await sql`analyze verifications`.execute(server.ctx.db.kysely);
      for (const filter of [
        { limit: 26, flagged: true },
        { limit: 26, signal: 'country_jump' as const },
      ])
        flaggedOnly(await plan(worldVerifications(server.ctx.db.kysely, { teamId: busy.teamId, mode: 'sandbox' }, filter), true));
    });

    test("a tag's walk keeps to the tag's index whatever its filters", async () => {
      for (const reasons of [['bad_cmac'], REASONS.filter((r) => r !== 'ok')]) {
        const text = await plan(worldVerifications(server.ctx.db.kysely, world, { tagId: 'tag_a', limit: 26, reasons }));
        // PostgreSQL weighs the tag's index against a reason's with its statistics; SQLite has none.
        if (kind === 'sqlite') assert.deepEqual(indexes(text), ['verifications_tag_time'], text);
        assert.doesNotMatch(text, SORT);
      }
    });
  });
}
