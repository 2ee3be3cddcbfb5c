// GET /tags `q`: comments and q folded by one function in JavaScript
// (src/tags/search-fold.ts), so both engines match the same way (docs/hardening.md).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { migrate } from '../../src/db/migrations.js';
import { searchTagIds } from '../../src/tags/repository.js';
import { DATABASES, call, startServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { createTags, updateDocument } from './helpers.js';

const COMMENTS = {
  upper: 'CAFÉ ÜNÏ',
  lower: 'café',
  decomposed: 'cafe\u0301 noir',
  kelvin: 'Kelvin',
  kelvinSign: '\u212A scale',
  sharpS: 'Straße',
  doubleS: 'STRASSE',
  greek: 'ΟΔΟΣ',
  ligature: '\uFB01ne', // ﬁne
  none: null,
} as const;
type Name = keyof typeof COMMENTS;

/** What each q must find, by comment name: fixed by hand, not computed with the function under test. */
const EXPECTED: [string, Name[]][] = [
  ['CAFÉ', ['upper', 'lower', 'decomposed']],
  ['café', ['upper', 'lower', 'decomposed']],
  ['cafe\u0301', ['upper', 'lower', 'decomposed']],
  ['É', ['upper', 'lower', 'decomposed']],
  ['ünï', ['upper']],
  ['ÜNÏ', ['upper']],
  // Accents are significant: e is not é (a decomposed é is é once normalized).
  ['e', ['kelvin', 'kelvinSign', 'sharpS', 'doubleS', 'ligature']],
  ['cafe', []],
  // The Kelvin sign is K, on both sides.
  ['k', ['kelvin', 'kelvinSign']],
  ['K', ['kelvin', 'kelvinSign']],
  ['\u212A', ['kelvin', 'kelvinSign']],
  ['\u212Aelvin', ['kelvin']],
  ['kelvin', ['kelvin']],
  // ß, ẞ and SS fold alike.
  ['ß', ['sharpS', 'doubleS']],
  ['straße', ['sharpS', 'doubleS']],
  ['STRA\u1E9EE', ['sharpS', 'doubleS']],
  ['strasse', ['sharpS', 'doubleS']],
  // Final sigma is sigma.
  ['οδοσ', ['greek']],
  ['ΟΔΟΣ', ['greek']],
  ['FINE', ['ligature']],
  ['\uFB01', ['ligature']],
];

for (const kind of DATABASES) {
  describe(`GET /tags q case folding (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    const ids = new Map<Name, string>();
    before(async () => {
      server = await startServer(kind);
      world = await server.seedTeam();
      const names = Object.keys(COMMENTS) as Name[];
      const tags = await createTags(
        server,
        world.sandbox.key,
        names.map((name) => ({ comment: COMMENTS[name] })),
      );
      names.forEach((name, i) => ids.set(name, tags[i].id));
    });
    after(() => server.close());

    const found = async (q: string): Promise<string[]> => {
      const response = await call(server, 'GET', `/tags?q=${encodeURIComponent(q)}&page_size=100&order_by[]=id`, { key: world.sandbox.key });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.meta.total_count, response.body.data.length);
      return response.body.data.map((t: any) => t.id);
    };
    const idsOf = (names: Name[]) => names.map((n) => ids.get(n)!).sort();

    test('q folds like the comments: CAFÉ/café, ÜNÏ, the Kelvin sign, ß, final sigma, ligatures', async () => {
      for (const [q, names] of EXPECTED) assert.deepEqual(await found(q), idsOf(names), `q=${q}`);
      // Comments are returned as written.
      const upper = await call(server, 'GET', `/tags/${ids.get('upper')}`, { key: world.sandbox.key });
      assert.equal(upper.body.data.attributes.comment, 'CAFÉ ÜNÏ');
      assert.equal(Object.keys(upper.body.data.attributes).includes('comment_folded'), false);
    });

    test('PATCH refolds the comment; null matches nothing', async () => {
      const id = ids.get('none')!;
      const patch = (comment: string | null) => call(server, 'PATCH', `/tags/${id}`, { key: world.sandbox.key, body: updateDocument(id, { comment }) });
      assert.equal((await patch('KÖLN')).status, 200);
      assert.deepEqual(await found('köln'), [id]);
      assert.equal((await patch('Düsseldorf')).status, 200);
      assert.deepEqual(await found('köln'), []);
      assert.deepEqual(await found('DÜSSELDORF'), [id]);
      assert.equal((await patch(null)).status, 200);
      assert.deepEqual(await found('DÜSSELDORF'), []);
    });

    test('q is a literal substring: LIKE and phrase characters, short and long q; a deleted tag is no longer found', async () => {
      const literal = ['50% off_now', '50x offXnow', 'a "quoted" back\\slash', 'ab'];
      const tags = await createTags(
        server,
        world.sandbox.key,
        literal.map((comment) => ({ comment })),
      );
      const [percent, lookalike, quoted, short] = tags.map((t: any) => t.id as string);
      assert.deepEqual(await found('0% off_'), [percent]);
      assert.deepEqual(await found('%'), [percent]);
      assert.deepEqual(await found('_'), [percent]);
      assert.deepEqual(await found('x offx'), [lookalike]);
      assert.deepEqual(await found('"quoted" b'), [quoted]);
      assert.deepEqual(await found('k\\s'), [quoted]);
      assert.deepEqual(await found('"'), [quoted]);
      assert.deepEqual(await found('ab'), [short]);
      assert.deepEqual(await found('a "quoted" back\\slash!'), []);
      assert.equal((await call(server, 'DELETE', `/tags/${quoted}`, { key: world.sandbox.key })).status, 204);
      assert.deepEqual(await found('"quoted" b'), []);
      for (const id of [percent, lookalike, short]) assert.equal((await call(server, 'DELETE', `/tags/${id}`, { key: world.sandbox.key })).status, 204);
    });

    test('a q of three characters or more is answered from the trigram index', async () => {
      const db = server.ctx.db.kysely;
      if (server.kind === 'sqlite') {
        const plan = await sql<{ detail: string }>`explain query plan
          select id from tags where team_id = ${world.teamId} and mode = 'sandbox'
          and id in (select k.tag_id from tag_search_keys k where k.key in (select rowid from tag_search where tag_search match '"café"'))`.execute(db);
        assert.ok(
          plan.rows.some((r) => /VIRTUAL TABLE INDEX/.test(r.detail)),
          plan.rows.map((r) => r.detail).join('\n'),
        );
        // The listing asks the trigram table for the world's few matching tags first (never a walk of the world).
        const sandbox = { teamId: world.teamId, mode: 'sandbox' as const };
        assert.deepEqual((await searchTagIds(db, sandbox, 'CAFÉ', 10))?.sort(), idsOf(['upper', 'lower', 'decomposed']));
        assert.equal(await searchTagIds(db, sandbox, 'CAFÉ', 2), null, 'more than the most: the world is walked instead');
        assert.equal(await searchTagIds(db, sandbox, 'ca', 10), null, 'no trigram in q');
        assert.deepEqual(await searchTagIds(db, { teamId: world.teamId, mode: 'production' }, 'CAFÉ', 10), [], 'another mode');
        // The index holds each folded comment once, keyed by its tag.
        const indexed = await sql<{
          n: number;
        }>`select count(*) as n from tag_search_keys k join tags t on t.id = k.tag_id where t.team_id = ${world.teamId}`.execute(db);
        const withComment = await db
          .selectFrom('tags')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('team_id', '=', world.teamId)
          .where('comment', 'is not', null)
          .executeTakeFirstOrThrow();
        assert.equal(Number(indexed.rows[0]!.n), Number(withComment.n));
      } else {
        // With seq scans priced out, a plan that can use the index does (a handful of rows would otherwise be read directly).
        const plan = await db.transaction().execute(async (trx) => {
          await sql`set local enable_seqscan = off`.execute(trx);
          return sql<{ 'QUERY PLAN': string }>`explain select id from tags where comment_folded like '%café%'`.execute(trx);
        });
        const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
        assert.match(text, /tags_comment_trigrams/, text);
      }
    });

    test('migrations 0010 and 0026 fold and index the comments stored before them', async () => {
      const db = server.ctx.db;
      // Back to the schema before 0010: the column gone (on PostgreSQL its trigram index with it), the search
      // table and its triggers gone (SQLite), and both migrations not applied.
      if (server.kind === 'sqlite') {
        for (const name of ['tag_search_insert', 'tag_search_delete', 'tag_search_update']) await sql`drop trigger ${sql.id(name)}`.execute(db.kysely);
        await sql`drop table tag_search`.execute(db.kysely);
        await sql`drop table tag_search_keys`.execute(db.kysely);
      }
      await sql`alter table tags drop column comment_folded`.execute(db.kysely);
      await db.kysely
        .deleteFrom('kysely_migration' as any)
        .where('name', 'in', ['0010_comment_folded', '0026_tag_search'])
        .execute();
      assert.deepEqual(await migrate(db), ['0010_comment_folded', '0026_tag_search']);
      for (const [q, names] of EXPECTED) assert.deepEqual(await found(q), idsOf(names), `q=${q}`);
    });
  });
}
