// GET /verifications?country= and GET /verifications/export?country= on both engines: exactly the scans
// of that country, with every other filter and across keyset pages; codes that are not two capital
// letters refused with a 400 naming `country`; and the walk kept to the country's index by both planners.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql, type Compilable } from 'kysely';
import { newId } from '../../src/ids.js';
import { worldVerifications, type VerificationRow } from '../../src/verifications/repository.js';
import { isoMicros } from '../../src/time.js';
import { newestFirst, scanRow, storeScans } from './stored-scans.js';
import { DATABASES, call, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { assertBadParameter, walk } from '../http/query.js';

const REASONS = ['ok', 'replayed', 'bad_cmac', 'bad_picc_data', 'uid_mismatch'] as const;
const COUNTRIES = [null, 'DE', 'FR', 'DE'] as const;
const DAY = 86_400_000_000;
/** 2026-01-01T00:00:00Z */
const START = Date.UTC(2026, 0, 1) * 1000;

for (const kind of DATABASES) {
  describe(`GET /verifications?country= (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    let rows: VerificationRow[];
    const tags = [newId('tag'), newId('tag'), newId('tag')];
    const list = (query: string, key = world.sandbox.key) => call(server, 'GET', `/verifications?${query}`, { key });
    const exported = (query: string) => call(server, 'GET', `/verifications/export?${query}`, { key: world.sandbox.key, headers: { accept: 'text/csv' } });
    const get = (path: string) => call(server, 'GET', path.replace(server.ctx.config.apiPrefix, ''), { key: world.sandbox.key });

    before(async () => {
      server = await startServer(kind);
      world = await server.seedTeam();
      // 60 scans over 5 days, four at each moment (the id breaks the tie, two of them German): 30 from DE,
      // 15 from FR, 15 of no known country; every seventh one flagged.
      rows = Array.from({ length: 60 }, (_, i) =>
        scanRow(world, 'sandbox', tags[i % 3]!, START + Math.floor(i / 4) * (DAY / 3), REASONS[i % 5]!, COUNTRIES[i % 4]!, i % 7 === 0 ? 'counter_gap' : null),
      );
      await storeScans(server, rows.slice(0, 30));
      await storeScans(server, rows.slice(30));
      // German scans elsewhere: the production world, and another team.
      await storeScans(server, [scanRow(world, 'production', tags[0]!, START, 'ok', 'DE')]);
      const other = await server.seedTeam();
      await storeScans(server, [scanRow(other, 'sandbox', tags[0]!, START, 'ok', 'DE'), scanRow(other, 'sandbox', newId('tag'), START + 1, 'ok', 'FR')]);
    });
    after(() => server.close());

    test('lists exactly the scans of that country, newest first, a page after another', async () => {
      const de = await walk(get, '/verifications?country=DE&page_size=7');
      assert.equal(de.ids.length, 30);
      assert.equal(de.pages, 5);
      assert.deepEqual(de.ids, newestFirst(rows.filter((r) => r.country === 'DE')));
      const fr = await walk(get, '/verifications?page_size=100&country=FR');
      assert.equal(fr.ids.length, 15);
      assert.equal(fr.pages, 1);
      assert.deepEqual(fr.ids, newestFirst(rows.filter((r) => r.country === 'FR')));
      const first = await list('country=FR&page_size=2');
      assert.deepEqual(
        first.body.data.map((v: { attributes: { country: string } }) => v.attributes.country),
        ['FR', 'FR'],
      );
      // The other mode sees its own one German scan; a well-formed code no scan has lists nothing.
      assert.equal((await list('country=DE', world.production.key)).body.data.length, 1);
      assert.deepEqual((await list('country=ZZ')).body, { data: [], links: { next: null } });
      assert.deepEqual((await list('country=US')).body, { data: [], links: { next: null } });
    });

    test('combines with every other filter', async () => {
      const expect = async (query: string, count: number, pick: (r: VerificationRow) => boolean) => {
        const { ids } = await walk(get, `/verifications?page_size=4&${query}`);
        assert.equal(ids.length, count, query);
        assert.deepEqual(ids, newestFirst(rows.filter(pick)), query);
      };
      await expect('country=DE&genuine=false', 24, (r) => r.country === 'DE' && r.genuine === 0);
      await expect('country=DE&genuine=true', 6, (r) => r.country === 'DE' && r.genuine === 1);
      await expect('country=DE&reason=ok', 6, (r) => r.country === 'DE' && r.reason === 'ok');
      await expect('country=FR&reason=bad_cmac', 3, (r) => r.country === 'FR' && r.reason === 'bad_cmac');
      await expect(`country=FR&tag_id=${tags[1]}`, 5, (r) => r.country === 'FR' && r.tag_id === tags[1]);
      await expect('country=DE&flagged=true', 4, (r) => r.country === 'DE' && r.signals !== null);
      await expect('country=DE&signal=counter_gap', 4, (r) => r.country === 'DE' && r.signals !== null);
      await expect('country=FR&flagged=false', 13, (r) => r.country === 'FR' && r.signals === null);
      await expect('country=DE&since=2026-01-03', 18, (r) => r.country === 'DE' && r.scanned_at >= START + 2 * DAY);
      await expect(
        'country=DE&since=2026-01-02&until=2026-01-03',
        6,
        (r) => r.country === 'DE' && r.scanned_at >= START + DAY && r.scanned_at < START + 2 * DAY,
      );
      await expect(
        `country=DE&genuine=false&tag_id=${tags[0]}&until=2026-01-04`,
        5,
        (r) => r.country === 'DE' && r.genuine === 0 && r.tag_id === tags[0] && r.scanned_at < START + 3 * DAY,
      );
    });

    test("a cursor continues the same country's walk only", async () => {
      const page = await list('country=DE&page_size=3');
      assert.equal(page.status, 200, page.text);
      const next = page.body.links.next as string;
      assert.match(next, /^\/api\/v1\/verifications\?country=DE&page_size=3&cursor=[A-Za-z0-9_-]+$/);
      const second = await get(next);
      assert.deepEqual(
        [...page.body.data, ...second.body.data].map((v: { id: string }) => v.id),
        newestFirst(rows.filter((r) => r.country === 'DE')).slice(0, 6),
      );
      const cursor = new URL(next, server.origin).searchParams.get('cursor')!;
      // Another country, no country, or the same country with another filter: not the query the cursor was given out for.
      for (const query of ['country=FR&page_size=3', 'page_size=3', 'country=DE&page_size=3&genuine=false'])
        assertBadParameter(await list(`${query}&cursor=${cursor}`), 'cursor');
      // And a cursor of the unfiltered walk does not carry over into a country's.
      const unfiltered = new URL((await list('page_size=3')).body.links.next, server.origin).searchParams.get('cursor')!;
      assertBadParameter(await list(`country=DE&page_size=3&cursor=${unfiltered}`), 'cursor');
      assert.equal((await list(`page_size=3&country=DE&cursor=${cursor}`)).status, 200);
    });

    test('anything but two capital letters is refused, on the list and the export', async () => {
      for (const value of ['us', 'USA', '', 'De', 'D', 'D1', '%20DE', 'DE%20', '%C3%84T', '%00', 'DE&country=DE', 'DE&country=FR'])
        for (const request of [list, exported]) assertBadParameter(await request(`country=${value}`), 'country');
      assert.match((await list('country=us')).body.errors[0].detail, /^country must be an ISO 3166-1 alpha-2 code, two capital letters/);
      assert.match((await list('country=DE&country=DE')).body.errors[0].detail, /^country must be given once$/);
    });

    test('the export lists the same scans as the walk, the country in each line', async () => {
      const response = await exported('country=DE&genuine=false');
      assert.equal(response.status, 200, response.text);
      const lines = response.text.split('\r\n').slice(0, -1).slice(1);
      assert.equal(lines.length, 24);
      assert.deepEqual(
        lines.map((line) => line.slice(0, line.indexOf(','))),
        newestFirst(rows.filter((r) => r.country === 'DE' && r.genuine === 0)),
      );
      assert.ok(lines.every((line) => line.split(',')[9] === 'DE'));
      const count = async (query: string) => (await exported(query)).text.split('\r\n').length - 2;
      assert.equal(await count('country=ZZ'), 0);
      assert.equal(await count(`country=FR&tag_id=${tags[2]}&since=${encodeURIComponent(isoMicros(START + DAY))}`), 4);
    });

    test('the OpenAPI document offers the parameter on both operations', async () => {
      const document = await (await fetch(`${server.base}/openapi.json`)).json();
      for (const path of ['/verifications', '/verifications/export']) {
        const parameter = document.paths[path].get.parameters.find((p: { name: string }) => p.name === 'country');
        assert.deepEqual([parameter?.in, parameter?.schema?.type, parameter?.schema?.pattern], ['query', 'string', '^[A-Z]{2}$'], path);
      }
    });
  });

  describe(`the country walk's index (${kind})`, () => {
    let server: TestServer;
    before(async () => (server = await startServer(kind)));
    after(() => server.close());

    /** As in list.test.ts: on PostgreSQL sequential scans and sorts are priced out unless `analyzed`. */
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
    const SORT = /TEMP B-TREE|(?:"|->\s+)(?:Incremental )?Sort\s+\(/;
    const indexes = (text: string) => [...new Set(text.match(/verifications_\w+_time|verifications_flagged/g))].sort();
    const world = { teamId: 'team_x', mode: 'sandbox' as const };
    const older = [START, 'vrf_0000000000000000000000'] as const;
    const refused = REASONS.filter((r) => r !== 'ok');

    test("a country's walk is one range of the country index, whatever the reasons, without a sort", async () => {
      for (const filter of [
        { limit: 26, country: 'DE' },
        { limit: 26, country: 'DE', before: older, since: START - DAY, until: START + DAY },
        { limit: 26, country: 'DE', reasons: refused },
        { limit: 26, country: 'DE', reasons: ['bad_cmac'] },
        { limit: 26, country: 'DE', flagged: false },
      ]) {
        const text = await plan(worldVerifications(server.ctx.db.kysely, world, filter));
        // PostgreSQL weighs one reason's range against the country's with its statistics; SQLite has none.
        if (kind === 'sqlite' || filter.reasons?.length !== 1) assert.deepEqual(indexes(text), ['verifications_country_time'], text);
        assert.doesNotMatch(text, SORT, text);
      }
    });

    test('with flagged or signal the flagged index is walked, with a tag the tag index, the country read from the rows (SQLite)', async () => {
      for (const filter of [
        { limit: 26, country: 'DE', flagged: true },
        { limit: 26, country: 'DE', signal: 'counter_gap' as const, reasons: refused },
      ]) {
        const text = await plan(worldVerifications(server.ctx.db.kysely, world, filter));
        // PostgreSQL may read the country's range and skip the unflagged rows instead: its statistics choose.
        if (kind === 'sqlite') assert.deepEqual(indexes(text), ['verifications_flagged'], text);
        else assert.ok(['verifications_country_time', 'verifications_flagged'].includes(indexes(text).join()), text);
        assert.doesNotMatch(text, SORT, text);
      }
      const text = await plan(worldVerifications(server.ctx.db.kysely, world, { tagId: 'tag_a', limit: 26, country: 'DE' }));
      if (kind === 'sqlite') assert.deepEqual(indexes(text), ['verifications_tag_time'], text);
      assert.doesNotMatch(text, SORT, text);
    });

    test('unfiltered and reason walks never take the partial country index', async () => {
      for (const filter of [{ limit: 26 }, { limit: 26, reasons: ['bad_cmac'] }, { limit: 26, since: START }]) {
        const text = await plan(worldVerifications(server.ctx.db.kysely, world, filter));
        assert.doesNotMatch(text, /verifications_country_time/, text);
      }
    });

    test("a busy world's rare country is read from its own range, not skipped to through the world's", async () => {
      const busy = { teamId: 'team_busy' };
      await storeScans(
        server,
        Array.from({ length: 3000 }, (_, i) =>
          scanRow(busy, 'sandbox', `tag_busy${i % 50}`, START + i * 1000, i % 10 === 0 ? 'replayed' : 'ok', i % 100 === 0 ? 'NZ' : 'DE'),
        ),
      );
      if (kind === 'postgres') await sql`analyze verifications`.execute(server.ctx.db.kysely);
      for (const filter of [
        { limit: 26, country: 'NZ' },
        { limit: 26, country: 'NZ', reasons: refused },
      ]) {
        const text = await plan(worldVerifications(server.ctx.db.kysely, { teamId: busy.teamId, mode: 'sandbox' }, filter), true);
        assert.deepEqual(indexes(text), ['verifications_country_time'], text);
        assert.doesNotMatch(text, SORT, text);
      }
      const found = await worldVerifications(server.ctx.db.kysely, { teamId: busy.teamId, mode: 'sandbox' }, { limit: 100, country: 'NZ' }).execute();
      assert.equal(found.length, 30);
      assert.ok(found.every((r) => r.country === 'NZ'));
    });
  });
}
