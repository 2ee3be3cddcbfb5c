// GET /tags `url` and `uid`: an operator holding a tag finds it by the url it carries (exactly, or by
// a prefix ending in `*`) or by its chip's UID; both combine with q, status, ordering and paging, see only
// the caller's world, and are answered from an index on both engines (docs/read-api.md#tag-search).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql, type Compilable } from 'kysely';
import { DATABASES, call, startServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { assertJsonApi } from '../kit/assertions.js';
import { assertBadParameter } from '../http/query.js';
import { chipTags, filteredCount, pageIds, type ListQuery } from '../../src/tags/repository.js';
import { importChips } from '../../src/tag-chips/import.js';
import { configure, createTags } from './helpers.js';
import { newCard, writeTag } from '../writer/helpers.js';
import { cliActor } from '../../src/audit/record.js';

const URLS = {
  p12: 'https://brand.example/p/12',
  p123: 'https://brand.example/p/123',
  p12slash: 'https://brand.example/p/12/x',
  p12percent: 'https://brand.example/p/12%41',
  p13: 'https://brand.example/p/13',
  underscore: 'https://brand.example/p/1_2',
  lookalike: 'https://brand.example/p/1x2',
  star: 'https://brand.example/p/*star',
  upper: 'https://brand.example/P/12',
  accented: 'https://brand.example/é/1',
  highest: 'https://brand.example/q/\u{10FFFF}z',
  afterHighest: 'https://brand.example/q0',
  escaped: 'https://brand.example/%FF/1',
  written: 'https://brand.example/w/1',
} as const;
type Name = keyof typeof URLS;
const COMMENTS: Partial<Record<Name, string>> = { p12: 'Alpha crate', p123: 'alpha', p12percent: 'beta', written: 'alpha shelf' };

const UID = '04A1B2C3D4E5F6';
const PRODUCTION_UID = '04B0B1B2B3B4B5';
const OTHER_TEAM_UID = '04C0C1C2C3C4C5';
const card = (uid: string) => newCard('ntag_424_dna', { uid: Buffer.from(uid, 'hex') });

/** The exact body of a refused query parameter. */
const refused = (parameter: string, detail: string) => ({ errors: [{ status: '400', title: 'Invalid query parameter', detail, source: { parameter } }] });

for (const kind of DATABASES) {
  describe(`GET /tags url and uid filters (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    let other: SeededTeam;
    const ids = new Map<Name, string>();
    let production: { p12: string; written: string };
    let otherTeam: { p12: string; written: string };

    const list = (query: string, key = world.sandbox.key) => call(server, 'GET', `/tags?${query}`, { key });
    const url = (value: string) => `url=${encodeURIComponent(value)}`;
    const idsOf = (...names: Name[]) => names.map((n) => ids.get(n)!);

    /** The ids listed, after asserting a 200 and its meta. */
    async function found(query: string, total: number, key = world.sandbox.key, page = { page: 1, page_size: 10 }): Promise<string[]> {
      const response = await list(query, key);
      assert.equal(response.status, 200, response.text);
      assertJsonApi(response);
      assert.deepEqual(response.body.meta, { total_count: total, ...page }, query);
      return response.body.data.map((t: any) => t.id);
    }

    /** A written tag: created with `url`, then bound through the writer to a card with `uid`. */
    async function written(key: string, tagUrl: string, uid: string, comment?: string): Promise<string> {
      const [tag] = await createTags(server, key, [{ url: tagUrl, comment }]);
      assert.equal((await writeTag(server, key, tag.id, card(uid))).status, 'configured');
      return tag.id;
    }

    before(async () => {
      server = await startServer(kind);
      world = await server.seedTeam();
      other = await server.seedTeam({ name: 'other' });
      const names = (Object.keys(URLS) as Name[]).filter((n) => n !== 'written');
      const tags = await createTags(
        server,
        world.sandbox.key,
        names.map((n) => ({ url: URLS[n], comment: COMMENTS[n] })),
      );
      names.forEach((n, i) => ids.set(n, tags[i].id));
      ids.set('written', await written(world.sandbox.key, URLS.written, UID, COMMENTS.written));
      // Configured without a chip, as an import of a chip written elsewhere may leave it until bound.
      await configure(server, world, ids.get('p123')!);
      // The same urls in the team's production world and in another team: never listed in this one.
      production = {
        p12: (await createTags(server, world.production.key, [{ url: URLS.p12 }]))[0].id,
        // Production writes NXP silicon only: its chip is imported, written elsewhere (the import upper-cases the UID).
        written: (
          await importChips(server.ctx, { teamId: world.teamId, mode: 'production', actor: cliActor() }, [
            {
              url: 'https://brand.example/p/12/prod',
              protocol: 'ntag_424_dna',
              uid: PRODUCTION_UID.toLowerCase(),
              sdm_meta_read_key: '11'.repeat(16),
              sdm_file_read_key: '22'.repeat(16),
            },
          ])
        )[0]!,
      };
      otherTeam = {
        p12: (await createTags(server, other.sandbox.key, [{ url: URLS.p12 }]))[0].id,
        written: await written(other.sandbox.key, 'https://brand.example/w/1/other', OTHER_TEAM_UID),
      };
    });
    after(() => server.close());

    test('url without a trailing * is one url, byte for byte: a * inside, case and accents are literal', async () => {
      assert.deepEqual(await found(url(URLS.p12), 1), idsOf('p12'));
      assert.deepEqual(await found(url(URLS.upper), 1), idsOf('upper'));
      assert.deepEqual(await found(url(URLS.star), 1), idsOf('star'));
      assert.deepEqual(await found(url(URLS.accented), 1), idsOf('accented'));
      assert.deepEqual(await found(url(URLS.highest), 1), idsOf('highest'));
      // A url that starts others is not a prefix without the *.
      assert.deepEqual(await found(url('https://brand.example/p/1'), 0), []);
      assert.deepEqual(await found(url('https://BRAND.example/p/12'), 0), []);
      assert.deepEqual(await found(url(URLS.p12 + '/'), 0), []);
    });

    test('url ending in * lists every url starting with what precedes it, in the order asked, page by page', async () => {
      const prefix = url('https://brand.example/p/12*');
      // Byte order: "12" < "12%41" < "12/x" < "123".
      const byUrl = idsOf('p12', 'p12percent', 'p12slash', 'p123');
      assert.deepEqual(await found(`${prefix}&order_by[]=url`, 4), byUrl);
      assert.deepEqual(await found(`${prefix}&order_by[]=url&order_directions[]=desc`, 4), [...byUrl].reverse());
      assert.deepEqual(await found(`${prefix}&order_by[]=url&page_size=3&page=2`, 4, undefined, { page: 2, page_size: 3 }), idsOf('p123'));
      assert.deepEqual(await found(`${prefix}&order_by[]=url&page_size=3&page=3`, 4, undefined, { page: 3, page_size: 3 }), []);
      // Without order_by: the most recently updated first (p123 was configured last).
      assert.equal((await found(prefix, 4))[0], ids.get('p123'));
      assert.deepEqual(
        await found(`${url('https://brand.example/p/*')}&order_by[]=url`, 8),
        idsOf('star', 'p12', 'p12percent', 'p12slash', 'p123', 'p13', 'underscore', 'lookalike'),
      );
      assert.deepEqual(await found(`${url('https://brand.example/P/*')}&order_by[]=url`, 1), idsOf('upper'));
      // The prefix may be a whole url: it is found with the longer ones.
      assert.deepEqual(await found(`${url(URLS.p13 + '*')}&order_by[]=url`, 1), idsOf('p13'));
    });

    test('in a prefix, % and _ are literal, and only the last * is the wildcard', async () => {
      assert.deepEqual(await found(url('https://brand.example/p/12%*'), 1), idsOf('p12percent'));
      assert.deepEqual(await found(url('https://brand.example/p/1_*'), 1), idsOf('underscore'));
      assert.deepEqual(await found(url('https://brand.example/p/%*'), 0), []);
      assert.deepEqual(await found(url('https://brand.example/p/**'), 1), idsOf('star'));
      assert.deepEqual(await found(url('https://brand.example/p/*s*'), 1), idsOf('star'));
      assert.deepEqual(await found(url('https://brand.example/p*/*'), 0), []);
    });

    test('a prefix past ASCII: an accented one, and one ending at U+10FFFF, the highest code point', async () => {
      assert.deepEqual(await found(url('https://brand.example/é*'), 1), idsOf('accented'));
      assert.deepEqual(await found(url('https://brand.example/e*'), 0), []);
      assert.deepEqual(await found(url('https://brand.example/q/\u{10FFFF}*'), 1), idsOf('highest'));
      assert.deepEqual(await found(`${url('https://brand.example/q*')}&order_by[]=url`, 2), idsOf('highest', 'afterHighest'));
    });

    test('uid finds the tag bound to the chip, in upper or lower case; a tag without a chip has no uid', async () => {
      assert.deepEqual(await found(`uid=${UID}`, 1), idsOf('written'));
      assert.deepEqual(await found(`uid=${UID.toLowerCase()}`, 1), idsOf('written'));
      assert.deepEqual(await found('uid=04a1B2c3D4e5F6', 1), idsOf('written'));
      assert.deepEqual(await found('uid=04FFFFFFFFFFFF', 0), []);
      const chip = await call(server, 'GET', `/tags/${ids.get('written')}/chip`, { key: world.sandbox.key });
      assert.equal(chip.body.data.attributes.uid, UID);
    });

    test('url, uid, q and status combine; total_count counts what they leave', async () => {
      const p12 = url('https://brand.example/p/12*');
      assert.deepEqual(await found(`${p12}&q=alpha&order_by[]=url`, 2), idsOf('p12', 'p123'));
      assert.deepEqual(await found(`${p12}&q=ALPHA&status=configured`, 1), idsOf('p123'));
      assert.deepEqual(await found(`${p12}&status=created&order_by[]=url`, 3), idsOf('p12', 'p12percent', 'p12slash'));
      assert.deepEqual(await found(`${p12}&q=${ids.get('p12slash')}`, 1), idsOf('p12slash'));
      assert.deepEqual(await found(`${url(URLS.p12)}&status=configured`, 0), []);
      assert.deepEqual(await found(`${url(URLS.p12)}&q=crate`, 1), idsOf('p12'));
      assert.deepEqual(await found(`uid=${UID}&${url('https://brand.example/w/*')}`, 1), idsOf('written'));
      assert.deepEqual(await found(`uid=${UID}&${url(URLS.written)}&q=shelf&status=configured&order_by[]=comment`, 1), idsOf('written'));
      assert.deepEqual(await found(`uid=${UID}&${url('https://brand.example/p/*')}`, 0), []);
      assert.deepEqual(await found(`uid=${UID}&status=created`, 0), []);
      assert.deepEqual(await found(`uid=${UID}&q=crate`, 0), []);
      assert.deepEqual(await found(`uid=${UID}&page=2`, 1, undefined, { page: 2, page_size: 10 }), []);
    });

    test("another team's tags and chips are never found, even by their exact url or UID", async () => {
      assert.deepEqual(await found(url(URLS.p12), 1), idsOf('p12'));
      assert.deepEqual(await found(`uid=${OTHER_TEAM_UID}`, 0), []);
      assert.deepEqual(await found(url('https://brand.example/w/1/other'), 0), []);
      assert.deepEqual(await found(`${url('https://brand.example/w/*')}`, 1), idsOf('written'));
      // The other team finds its own, and nothing of this one.
      assert.deepEqual(await found(url(URLS.p12), 1, other.sandbox.key), [otherTeam.p12]);
      assert.deepEqual(await found(`uid=${OTHER_TEAM_UID}`, 1, other.sandbox.key), [otherTeam.written]);
      assert.deepEqual(await found(`uid=${UID}`, 0, other.sandbox.key), []);
    });

    test('a sandbox key does not see production tags, nor a production key sandbox ones', async () => {
      assert.deepEqual(await found(`uid=${PRODUCTION_UID}`, 0), []);
      assert.deepEqual(await found(url('https://brand.example/p/12/prod'), 0), []);
      assert.deepEqual(await found(`uid=${PRODUCTION_UID}`, 1, world.production.key), [production.written]);
      assert.deepEqual(await found(url(URLS.p12), 1, world.production.key), [production.p12]);
      assert.deepEqual(await found(`${url('https://brand.example/p/12*')}&order_by[]=url`, 2, world.production.key), [production.p12, production.written]);
      assert.deepEqual(await found(`uid=${UID}`, 0, world.production.key), []);
    });

    test('a malformed, empty or repeated url or uid → 400 naming it', async () => {
      const urlEmpty = refused('url', 'url must not be empty (a url, or the start of one followed by *)');
      const uidShape = refused('uid', 'uid must be a 7-byte chip UID: 14 hex digits (04A1B2C3D4E5F6)');
      const cases: [string, ReturnType<typeof refused>][] = [
        ['url=', urlEmpty],
        ['url=*', urlEmpty],
        ['url=a&url=b', refused('url', 'url must be given once')],
        [`${url(URLS.p12)}&${url(URLS.p12)}`, refused('url', 'url must be given once')],
        ['url=%00', refused('url', 'url must not contain NUL')],
        ['url=a%0Ab*', refused('url', 'url must not contain control characters (U+0000 to U+001F, U+007F)')],
        [url('https://brand.example/' + 'a'.repeat(2048)), refused('url', 'url must be at most 2048 bytes, as a tag url is')],
        ['uid=', uidShape],
        ['uid=04A1B2C3D4E5F', uidShape],
        ['uid=04A1B2C3D4E5F6A7', uidShape],
        ['uid=04A1B2C3D4E5FG', uidShape],
        ['uid=0x04A1B2C3D4E5', uidShape],
        ['uid=04:A1:B2:C3:D4:E5:F6', uidShape],
        ['uid=%2004A1B2C3D4E5F6', uidShape],
        [`uid=${UID}*`, uidShape],
        [`uid=${UID}&uid=${UID}`, refused('uid', 'uid must be given once')],
        ['uid=%00', refused('uid', 'uid must not contain NUL')],
        // A valid uid does not excuse a bad url, nor the other way round.
        [`uid=${UID}&url=`, urlEmpty],
        [`${url(URLS.p12)}&uid=123`, uidShape],
      ];
      for (const [query, body] of cases) {
        const response = await list(query);
        assertBadParameter(response, body.errors[0].source.parameter);
        assert.deepEqual(response.body, body, query);
      }
      // Brackets make another name, which the operation does not know.
      for (const name of ['url[]', 'uid[]']) {
        const response = await list(`${name}=x`);
        assertBadParameter(response, name);
        assert.deepEqual(
          response.body,
          refused(
            name,
            `${name} is not a query parameter of this operation; known: page, page_size, q, status, url, uid, order_by[], order_by, order_directions[], order_directions`,
          ),
        );
      }
      // The longest url a tag may hold is a valid value, exactly or as a prefix.
      const longest = 'https://brand.example/' + 'a'.repeat(2048 - 'https://brand.example/'.length);
      assert.deepEqual(await found(url(longest), 0), []);
      assert.deepEqual(await found(url(longest + '*'), 0), []);
    });

    test('a value whose escapes decode to no character is taken as written (the querystring parser keeps it)', async () => {
      assert.deepEqual(await found(url('https://brand.example/%FF*'), 1), idsOf('escaped'));
      assert.deepEqual(await found('url=https://brand.example/%FF*', 1), idsOf('escaped'));
      assert.deepEqual(await found('url=%ED%A0%80', 0), []);
      assert.deepEqual(await found('url=https://brand.example/%E2%82*', 0), []);
      assertBadParameter(await list('uid=%ED%A0%80'), 'uid');
    });
  });

  describe(`GET /tags url and uid plans (${kind})`, () => {
    let server: TestServer;
    let world: { teamId: string; mode: 'sandbox' };
    before(async () => {
      server = await startServer(kind);
      const team = await server.seedTeam();
      world = { teamId: team.teamId, mode: 'sandbox' };
      // A world of 2,000 tags under four url prefixes, so that PostgreSQL's statistics tell a narrow prefix from the world.
      for (let batch = 0; batch < 4; batch++)
        await createTags(
          server,
          team.sandbox.key,
          Array.from({ length: 500 }, (_, i) => ({ url: `https://brand.example/b${batch}/p/${i}`, comment: i % 3 === 0 ? null : `crate ${i}` })),
        );
      if (kind === 'postgres') await sql`analyze tags`.execute(server.ctx.db.kysely);
    });
    after(() => server.close());

    /**
     * The planner's words for a statement. SQLite keeps no statistics here (nothing runs ANALYZE), so its
     * plan is the one production gets; PostgreSQL plans with the statistics of the seeded world, except where
     * `noSeqScan` prices sequential scans out (a table of a handful of rows is cheaper to read whole).
     */
    async function plan(query: Compilable & { explain(): Promise<Record<string, unknown>[]> }, noSeqScan = false): Promise<string> {
      const db = server.ctx.db.kysely;
      if (kind === 'sqlite') {
        const compiled = query.compile();
        const rows = (await db.executeQuery(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]))).rows as { detail: string }[];
        return rows.map((r) => r.detail).join('\n');
      }
      return db.transaction().execute(async (trx) => {
        if (noSeqScan) await sql`set local enable_seqscan = off`.execute(trx);
        return (await query.explain()).map((r) => r['QUERY PLAN']).join('\n');
      });
    }
    const listing = (filter: Partial<ListQuery>): ListQuery => ({
      q: null,
      status: null,
      order: [{ field: 'updated_at', direction: 'desc' }],
      limit: 10,
      offset: 0,
      ...filter,
    });
    const indexes = (text: string) => [...new Set(text.match(/\b(?:tags|chips)_\w+|sqlite_autoindex_\w+/g))].sort();

    test('an exact url is one entry of tags_team_url, for the page and its count', async () => {
      const filter = listing({ url: { exact: 'https://brand.example/b1/p/12' } });
      for (const text of [await plan(pageIds(server.ctx.db.kysely, world, filter)), await plan(filteredCount(server.ctx.db.kysely, world, filter))]) {
        assert.deepEqual(indexes(text), ['tags_team_url'], text);
        assert.match(text, kind === 'sqlite' ? /url=\?/ : /url = 'https:\/\/brand\.example\/b1\/p\/12'::text/, text);
      }
    });

    test('a url prefix is one range of tags_team_url, bounded on both sides, for the page and its count', async () => {
      for (const filter of [
        listing({ url: { prefix: 'https://brand.example/b1/p/12' } }),
        listing({ url: { prefix: 'https://brand.example/b1/p/12' }, status: 'created', order: [{ field: 'comment', direction: 'asc' }] }),
        listing({ url: { prefix: 'https://brand.example/b1/p/12' }, order: [{ field: 'url', direction: 'desc' }] }),
      ]) {
        for (const text of [await plan(pageIds(server.ctx.db.kysely, world, filter)), await plan(filteredCount(server.ctx.db.kysely, world, filter))]) {
          assert.deepEqual(indexes(text), ['tags_team_url'], text);
          assert.match(
            text,
            kind === 'sqlite'
              ? /tags_team_url \(team_id=\? AND mode=\? AND url>\? AND url<\?\)/
              : /Index Cond: .*url >= 'https:\/\/brand\.example\/b1\/p\/12'::text\) AND \(url < 'https:\/\/brand\.example\/b1\/p\/13'::text\)/,
            text,
          );
        }
      }
    });

    test('a uid is one entry of chips_mode_uid, then its tags are read by id', async () => {
      const lookup = await plan(chipTags(server.ctx.db.kysely, world, '04A1B2C3D4E5F6'), true);
      assert.deepEqual(indexes(lookup), ['chips_mode_uid'], lookup);
      assert.match(lookup, kind === 'sqlite' ? /chips_mode_uid \(mode=\? AND uid=\? AND team_id=\?\)/ : /Index Cond: .*mode = .*uid = .*team_id = /, lookup);
      // The listing then names the chip's tags: a lookup by id, never a walk of the world in the page's order.
      for (const filter of [
        listing({ among: ['tag_0000000000000000000000'] }),
        listing({ among: ['tag_0000000000000000000000'], url: { prefix: 'https://brand.example/b1/' } }),
      ]) {
        for (const text of [await plan(pageIds(server.ctx.db.kysely, world, filter)), await plan(filteredCount(server.ctx.db.kysely, world, filter))]) {
          assert.match(
            text,
            kind === 'sqlite'
              ? /USING (?:COVERING )?INDEX (?:sqlite_autoindex_tags_1 \(id=\?\)|tags_team_id \(team_id=\? AND mode=\? AND id=\?\))/
              : /Index Cond: .*id = 'tag_0000000000000000000000'::text/,
            text,
          );
          assert.doesNotMatch(text, /tags_team_updated_at|SCAN tags/, text);
        }
      }
    });
  });
}
