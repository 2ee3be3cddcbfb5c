// GET /verifications?case_id= on both engines: every scan of a case, newest first, page after page, with the
// other filters; a case of another world lists none; an id that is not a case's is a 400 naming `case_id`; and
// the walk is one range of case_scans' primary key, however many scans the case holds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { openOrJoinCases } from '../../src/cases/opening.js';
import { newId } from '../../src/ids.js';
import { worldVerifications, writeOutcomes, type VerificationRow } from '../../src/verifications/repository.js';
import { isoMicros } from '../../src/time.js';
import { newestFirst, scanRow } from './stored-scans.js';
import { emulated, flipHexDigit, tapUrl, verify } from './helpers.js';
import { DATABASES, call, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { assertBadParameter, walk } from '../http/query.js';

const DAY = 86_400_000_000;
/** 2026-01-01T00:00:00Z */
const START = Date.UTC(2026, 0, 1) * 1000;

for (const kind of DATABASES) {
  describe(`GET /verifications?case_id= (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    let other: SeededTeam;
    let rows: VerificationRow[];
    const tags = [newId('tag'), newId('tag')];
    const cases = new Map<string, string>();
    const list = (query: string, key = world.sandbox.key) => call(server, 'GET', `/verifications?${query}`, { key });
    const exported = (query: string) => call(server, 'GET', `/verifications/export?${query}`, { key: world.sandbox.key, headers: { accept: 'text/csv' } });
    const get = (path: string) => call(server, 'GET', path.replace(server.ctx.config.apiPrefix, ''), { key: world.sandbox.key });

    /** Stores scans as the scan commit does: the rows and their counts, then the flagged ones open or join their tags' cases. */
    async function commit(scans: VerificationRow[]): Promise<void> {
      await server.ctx.db.kysely.transaction().execute(async (trx) => {
        await writeOutcomes(trx, [], [], scans);
        const flagged = scans.filter((r) => r.signals !== null);
        if (flagged.length > 0) await openOrJoinCases(trx, flagged);
      });
    }
    const caseOf = async (w: SeededTeam, mode: 'sandbox' | 'production', tagId: string) =>
      (
        await server.ctx.db.kysely
          .selectFrom('cases')
          .select('id')
          .where('team_id', '=', w.teamId)
          .where('mode', '=', mode)
          .where('tag_id', '=', tagId)
          .executeTakeFirstOrThrow()
      ).id;

    before(async () => {
      server = await startServer(kind);
      world = await server.seedTeam();
      other = await server.seedTeam();
      // 90 scans of two tags over 6 days, three at each moment (the id breaks the tie); two in three flagged,
      // so each tag's case holds 30 scans among its tag's unflagged ones, in batches as a scan commit takes them.
      const REASONS = ['ok', 'replayed', 'bad_cmac'] as const;
      rows = Array.from({ length: 90 }, (_, i) =>
        scanRow(
          world,
          'sandbox',
          tags[i % 2]!,
          START + Math.floor(i / 3) * (DAY / 5),
          REASONS[i % 3]!,
          i % 4 === 0 ? 'FR' : 'DE',
          i % 3 === 2 ? null : 'counter_gap',
        ),
      );
      for (let at = 0; at < rows.length; at += 20) await commit(rows.slice(at, at + 20));
      cases.set('first', await caseOf(world, 'sandbox', tags[0]!));
      cases.set('second', await caseOf(world, 'sandbox', tags[1]!));
      // Cases of other worlds: another team's, and the team's production mode.
      const [otherTag, productionTag] = [newId('tag'), newId('tag')];
      await commit([scanRow(other, 'sandbox', otherTag, START, 'ok', 'DE', 'counter_gap')]);
      await commit([scanRow(world, 'production', productionTag, START, 'ok', 'DE', 'counter_gap')]);
      cases.set('other team', await caseOf(other, 'sandbox', otherTag));
      cases.set('production', await caseOf(world, 'production', productionTag));
    });
    after(() => server.close());

    const inCase = (tag: string) => (r: VerificationRow) => r.tag_id === tag && r.signals !== null;

    test('lists every scan of the case, newest first, a page after another, and no other scan of its tag', async () => {
      const first = await walk(get, `/verifications?case_id=${cases.get('first')}&page_size=7`);
      assert.equal(first.ids.length, 30);
      assert.equal(first.pages, 5);
      assert.deepEqual(first.ids, newestFirst(rows.filter(inCase(tags[0]!))));
      const second = await walk(get, `/verifications?page_size=100&case_id=${cases.get('second')}`);
      assert.deepEqual(second.ids, newestFirst(rows.filter(inCase(tags[1]!))));
      assert.equal(second.pages, 1);
      // Page sizes that end exactly on the last scan, and one scan a page.
      for (const size of [1, 10, 15, 30]) {
        const { ids, pages } = await walk(get, `/verifications?case_id=${cases.get('first')}&page_size=${size}`);
        assert.deepEqual(ids, first.ids, `page_size=${size}`);
        assert.equal(pages, Math.ceil(30 / size), `page_size=${size}`);
      }
      const case_ = (await call(server, 'GET', `/cases/${cases.get('first')}`, { key: world.sandbox.key })).body;
      assert.equal(case_.data.attributes.scans, 30);
    });

    test('combines with the other filters', async () => {
      const expect = async (query: string, pick: (r: VerificationRow) => boolean) => {
        const { ids } = await walk(get, `/verifications?page_size=4&case_id=${cases.get('first')}&${query}`);
        const expected = newestFirst(rows.filter((r) => inCase(tags[0]!)(r) && pick(r)));
        assert.ok(expected.length > 0, query);
        assert.deepEqual(ids, expected, query);
      };
      await expect('genuine=false', (r) => r.genuine === 0);
      await expect('genuine=true', (r) => r.genuine === 1);
      await expect('reason=replayed', (r) => r.reason === 'replayed');
      await expect('country=FR', (r) => r.country === 'FR');
      await expect('signal=counter_gap', () => true);
      await expect(`tag_id=${tags[0]}`, () => true);
      await expect(
        `since=${encodeURIComponent(isoMicros(START + 2 * DAY))}&until=2026-01-05`,
        (r) => r.scanned_at >= START + 2 * DAY && r.scanned_at < START + 4 * DAY,
      );
      assert.deepEqual((await list(`case_id=${cases.get('first')}&tag_id=${tags[1]}`)).body, { data: [], links: { next: null } });
      assert.deepEqual((await list(`case_id=${cases.get('first')}&flagged=false`)).body, { data: [], links: { next: null } });
    });

    test('a case of another team or mode lists none, and an unknown case none', async () => {
      const empty = { data: [], links: { next: null } };
      assert.deepEqual((await list(`case_id=${cases.get('other team')}`)).body, empty);
      assert.deepEqual((await list(`case_id=${cases.get('production')}`)).body, empty);
      assert.deepEqual((await list(`case_id=${cases.get('first')}`, world.production.key)).body, empty);
      assert.deepEqual((await list(`case_id=${cases.get('first')}`, other.sandbox.key)).body, empty);
      assert.deepEqual((await list(`case_id=${newId('case')}`)).body, empty);
      // Its own world sees it.
      assert.equal((await list(`case_id=${cases.get('production')}`, world.production.key)).body.data.length, 1);
      assert.equal((await list(`case_id=${cases.get('other team')}`, other.sandbox.key)).body.data.length, 1);
    });

    test('an id that is not a case id is refused, on the list and the export', async () => {
      const first = cases.get('first')!;
      for (const query of ['case_id=', `case_id=${tags[0]}`, 'case_id=case_', 'case_id=case_short', `case_id=${first}x`, `case_id=${first}&case_id=${first}`])
        for (const request of [list, exported]) assertBadParameter(await request(query), 'case_id');
      assert.match((await list('case_id=tag_x')).body.errors[0].detail, /^case_id must be a case id \(case_…\)$/);
    });

    test("a cursor continues the same case's walk only", async () => {
      const page = await list(`case_id=${cases.get('first')}&page_size=3`);
      const next = page.body.links.next as string;
      const cursor = new URL(next, server.origin).searchParams.get('cursor')!;
      assertBadParameter(await list(`case_id=${cases.get('second')}&page_size=3&cursor=${cursor}`), 'cursor');
      assertBadParameter(await list(`page_size=3&cursor=${cursor}`), 'cursor');
      assert.equal((await get(next)).status, 200);
    });

    test('the export lists the same scans as the walk', async () => {
      const response = await exported(`case_id=${cases.get('second')}`);
      assert.equal(response.status, 200, response.text);
      const lines = response.text.split('\r\n').slice(1, -1);
      assert.deepEqual(
        lines.map((line) => line.slice(0, line.indexOf(','))),
        newestFirst(rows.filter(inCase(tags[1]!))),
      );
    });

    test('a case opened by forged taps lists the scans GET /cases/:id shows', async () => {
      const tag = await emulated(server, world.teamId, 'ntag_424_dna');
      const forged = flipHexDigit(await tapUrl(server, tag.id));
      for (let i = 0; i < 5; i++) await verify(server, world.sandbox.key, forged);
      const id = await caseOf(world, 'sandbox', tag.id);
      const shown = (await call(server, 'GET', `/cases/${id}`, { key: world.sandbox.key })).body;
      const inCase = shown.included.filter((r: { type: string; meta?: { in_case?: boolean } }) => r.type === 'verifications' && r.meta?.in_case);
      const listed = (await list(`case_id=${id}`)).body.data;
      assert.ok(listed.length >= 2, JSON.stringify(listed));
      assert.equal(listed.length, shown.data.attributes.scans);
      assert.deepEqual(
        listed.map((v: { id: string }) => v.id),
        inCase.map((v: { id: string }) => v.id),
      );
    });

    test('the OpenAPI document offers the parameter on both operations', async () => {
      const document = await (await fetch(`${server.base}/openapi.json`)).json();
      for (const path of ['/verifications', '/verifications/export']) {
        const parameter = document.paths[path].get.parameters.find((p: { name: string }) => p.name === 'case_id');
        assert.deepEqual([parameter?.in, parameter?.schema?.type], ['query', 'string'], path);
      }
    });
  });

  describe(`the case walk's index (${kind})`, () => {
    let server: TestServer;
    before(async () => (server = await startServer(kind)));
    after(() => server.close());

    /**
     * As in list.test.ts, but the statement is built on the transaction that prices out sequential scans and
     * sorts (unless `analyzed`), so that its EXPLAIN runs where those settings hold.
     */
    async function plan(filter: Parameters<typeof worldVerifications>[2], on: { teamId: string; mode: 'sandbox' } = world, analyzed = false): Promise<string> {
      const db = server.ctx.db;
      if (kind === 'sqlite') {
        const compiled = worldVerifications(db.kysely, on, filter).compile();
        return JSON.stringify((await db.kysely.executeQuery(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]))).rows);
      }
      return db.kysely.transaction().execute(async (trx) => {
        if (!analyzed) {
          await sql`set local enable_seqscan = off`.execute(trx);
          await sql`set local enable_sort = off`.execute(trx);
        }
        return JSON.stringify(await worldVerifications(trx, on, filter).explain());
      });
    }
    const world = { teamId: 'team_x', mode: 'sandbox' as const };
    const SORT = /TEMP B-TREE|(?:"|->\s+)(?:Incremental )?Sort\s+\(/;
    const older = [START, 'vrf_0000000000000000000000'] as const;

    test("a case's walk is one range of case_scans' key, each scan read by its id, without a sort", async () => {
      const caseId = newId('case');
      for (const filter of [
        { limit: 26, caseId },
        { limit: 26, caseId, before: older, since: START - DAY, until: START + DAY },
        { limit: 26, caseId, reasons: ['replayed', 'bad_cmac'], country: 'DE', tagId: 'tag_a' },
        { limit: 26, caseId, signal: 'counter_gap' as const },
      ]) {
        const text = await plan(filter);
        if (kind === 'sqlite') {
          assert.match(text, /SEARCH c USING (?:COVERING )?INDEX sqlite_autoindex_case_scans_1 \(case_id=/, text);
          assert.match(text, /SEARCH v USING INDEX sqlite_autoindex_verifications_1 \(id=\?\)/, text);
        } else {
          // On empty tables PostgreSQL may join the world's rows (one, it guesses); the busy world below has statistics.
          assert.match(text, /Index Only Scan Backward using case_scans_pk on case_scans c/, text);
        }
        assert.doesNotMatch(text, SORT, text);
      }
    });

    test('a long case on a busy world is still read a page at a time', async () => {
      const busy = { teamId: 'team_busy', mode: 'sandbox' as const };
      const scans = Array.from({ length: 3000 }, (_, i) =>
        scanRow(busy, 'sandbox', `tag_busy${i % 50}`, START + i * 1000, i % 10 === 0 ? 'replayed' : 'ok', 'DE', i % 50 === 7 ? 'counter_gap' : null),
      );
      await server.ctx.db.kysely.transaction().execute(async (trx) => {
        await writeOutcomes(trx, [], [], scans);
        await openOrJoinCases(
          trx,
          scans.filter((r) => r.signals !== null),
        );
      });
      if (kind === 'postgres') await sql`analyze`.execute(server.ctx.db.kysely);
      const caseId = (await server.ctx.db.kysely.selectFrom('cases').select('id').where('team_id', '=', busy.teamId).executeTakeFirstOrThrow()).id;
      const text = await plan({ limit: 26, caseId }, busy);
      if (kind === 'postgres') {
        assert.match(text, /Index Only Scan Backward using case_scans_pk on case_scans c/, text);
        assert.match(text, /Index Scan using verifications_pkey on verifications v/, text);
      }
      assert.doesNotMatch(text, SORT, text);
      assert.doesNotMatch(text, /verifications_\w+_time|verifications_flagged/, text);
      const found = await worldVerifications(server.ctx.db.kysely, busy, { limit: 100, caseId }).execute();
      assert.equal(found.length, 60);
      assert.ok(found.every((r) => r.tag_id === 'tag_busy7' && r.signals === 'counter_gap'));
    });
  });
}
