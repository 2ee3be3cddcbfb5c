// GET /tags/export on both engines: the world's tags with the list's filters as CSV, by id, each tag once
// with its chip's UID (a comment a spreadsheet would run as a formula is neutralised); every filter of
// GET /tags lists what the list lists; 2,500 tags are 3 statements, and a client that stops reading stops
// the reading of the database; bad filters and paging parameters named, a JSON:API-only Accept, no key, a
// verify key; another team's and another mode's tags never appear.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { DATABASES, call, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { pad, series } from '../kit/seed.js';
import { settled, statementCounter } from '../kit/statements.js';
import { assertBadParameter } from '../http/query.js';
import { newCard, writeTag } from '../writer/helpers.js';
import { configure, createTags } from './helpers.js';

const HEADER = 'id,protocol,url,status,comment,session_duration,chip_uid,configured_at,inserted_at,updated_at';
const UID = '04A1B2C3D4E5F6';
const OTHER_UID = '04C0C1C2C3C4C5';
/** Tags of one world seeded by SQL: 2 full statements and a third that ends the walk. */
const MANY = 2_500;
/** Tags whose CSV (about 2,000 bytes a line, 40 MB in all) is far more than the sockets' buffers hold. */
const WIDE = 20_000;
const LONG = 'x'.repeat(1_900);

/** Splits a CSV body into its lines (no field of these tags holds a line break). */
const linesOf = (text: string) => text.split('\r\n').slice(0, -1);
const idsOf = (lines: string[]) => lines.slice(1).map((l) => l.slice(0, l.indexOf(',')));
const card = (uid: string) => newCard('ntag_424_dna', { uid: Buffer.from(uid, 'hex') });

/** `count` tags of a world straight into the table, ids `tag_<prefix>000…i`, urls `https://e.x/<prefix><filler>i`. */
async function seed(server: TestServer, teamId: string, count: number, prefix: string, filler = '') {
  const k = server.kind;
  await sql`insert into tags (id, team_id, mode, protocol, url, comment, comment_folded, session_duration, status, configured_at, inserted_at, updated_at)
    select 'tag_' || ${sql.lit(prefix)} || ${pad(k, 's.i', 21)}, ${teamId}, 'sandbox', 'ntag_424_dna', 'https://e.x/' || ${sql.lit(prefix)} || ${filler} || s.i,
      null, null, 600, 'created', null, 1, 1
    from ${series(k, count)}`.execute(server.ctx.db.kysely);
}

for (const kind of DATABASES)
  describe(`GET /tags/export (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    let other: SeededTeam;
    let many: SeededTeam;
    let wide: SeededTeam;
    /** The world's sandbox tags by name. */
    const tags: Record<'formula' | 'quoted' | 'written' | 'plus', string> = { formula: '', quoted: '', written: '', plus: '' };
    let production = '';
    let theirs: string[] = [];
    const { counter, plugin } = statementCounter('tags');

    before(async () => {
      server = await startServer(kind, {}, { plugins: [plugin] });
      world = await server.seedTeam({ name: 'export' });
      other = await server.seedTeam({ name: 'other' });
      many = await server.seedTeam({ name: 'many' });
      wide = await server.seedTeam({ name: 'wide' });
      const created = await createTags(server, world.sandbox.key, [
        { url: 'https://brand.example/p/1', comment: '=HYPERLINK("https://evil.example")' },
        { url: 'https://brand.example/p/2', comment: 'a, "quoted" comment', protocol: 'ntag_424_dna_tag_tamper', session_duration: 60 },
        { url: 'https://brand.example/q/3', comment: 'Alpha shelf' },
        { url: 'https://brand.example/p/4', comment: '+1 crate' },
      ]);
      [tags.formula, tags.quoted, tags.written, tags.plus] = created.map((t) => t.id);
      assert.equal((await writeTag(server, world.sandbox.key, tags.written, card(UID))).status, 'configured');
      // Configured without a chip, as an import of a chip written elsewhere may leave it until bound.
      await configure(server, world, tags.plus);
      // The same url in the team's production world and in another team's sandbox.
      production = (await createTags(server, world.production.key, [{ url: 'https://brand.example/p/1' }]))[0].id;
      const [mine] = await createTags(server, other.sandbox.key, [{ url: 'https://brand.example/p/1', comment: 'crate' }]);
      const [chip] = await createTags(server, other.sandbox.key, [{ url: 'https://brand.example/w/other' }]);
      assert.equal((await writeTag(server, other.sandbox.key, chip.id, card(OTHER_UID))).status, 'configured');
      theirs = [mine.id, chip.id].sort();
      await seed(server, many.teamId, MANY, 'm');
      await seed(server, wide.teamId, WIDE, 'w', LONG);
    });
    after(() => server.close());

    const exported = (query = '', key = world.sandbox.key, accept = 'text/csv') =>
      fetch(`${server.base}/tags/export${query}`, { headers: { authorization: `Bearer ${key}`, accept } });
    const lines = async (query = '', key = world.sandbox.key) => {
      const response = await exported(query, key);
      assert.equal(response.status, 200, query);
      return linesOf(await response.text());
    };

    test('each tag of the world once, by id, with its chip; a quoted comment, and one like a formula neutralised', async () => {
      const response = await exported();
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
      assert.match(response.headers.get('content-disposition')!, /^attachment; filename="tags-sandbox-\d{4}-\d{2}-\d{2}\.csv"$/);
      assert.equal(response.headers.get('content-length'), null, 'streamed, not buffered');
      const text = await response.text();
      // Times as the API shows them.
      const attributes = async (id: string) => (await call(server, 'GET', `/tags/${id}`, { key: world.sandbox.key })).body.data.attributes;
      const [formula, quoted, written, plus] = await Promise.all([tags.formula, tags.quoted, tags.written, tags.plus].map(attributes));
      assert.equal(written.status, 'configured');
      const rows = [
        `${tags.formula},ntag_424_dna,https://brand.example/p/1,created,"'=HYPERLINK(""https://evil.example"")",600,,,${formula.inserted_at},${formula.updated_at}`,
        `${tags.quoted},ntag_424_dna_tag_tamper,https://brand.example/p/2,created,"a, ""quoted"" comment",60,,,${quoted.inserted_at},${quoted.updated_at}`,
        `${tags.written},ntag_424_dna,https://brand.example/q/3,configured,Alpha shelf,600,${UID},${written.configured_at},${written.inserted_at},${written.updated_at}`,
        `${tags.plus},ntag_424_dna,https://brand.example/p/4,configured,'+1 crate,600,,${plus.configured_at},${plus.inserted_at},${plus.updated_at}`,
      ];
      assert.equal(text, [HEADER, ...rows.sort()].join('\r\n') + '\r\n');
    });

    test('every filter of GET /tags, alone and combined, exports exactly what the list lists', async () => {
      const listed = async (query: string) => {
        const r = await call(server, 'GET', `/tags?${[query, 'order_by[]=id', 'page_size=100'].filter(Boolean).join('&')}`, { key: world.sandbox.key });
        assert.equal(r.status, 200, r.text);
        return r.body.data.map((t: { id: string }) => t.id);
      };
      const url = (value: string) => `url=${encodeURIComponent(value)}`;
      const cases: [string, string[]][] = [
        ['', [tags.formula, tags.quoted, tags.written, tags.plus]],
        ['q=', [tags.formula, tags.quoted, tags.written, tags.plus]],
        ['q=crate', [tags.plus]],
        ['q=SHELF', [tags.written]],
        ['q=quoted', [tags.quoted]],
        [`q=${tags.quoted}`, [tags.quoted]],
        ['status=created', [tags.formula, tags.quoted]],
        ['status=configured', [tags.written, tags.plus]],
        [url('https://brand.example/p/1'), [tags.formula]],
        [url('https://brand.example/p/*'), [tags.formula, tags.quoted, tags.plus]],
        [url('https://brand.example/q/3*'), [tags.written]],
        [url('https://brand.example/p/'), []],
        [`uid=${UID}`, [tags.written]],
        [`uid=${UID.toLowerCase()}`, [tags.written]],
        ['uid=04FFFFFFFFFFFF', []],
        [`status=configured&${url('https://brand.example/p/*')}`, [tags.plus]],
        [`q=crate&status=created`, []],
        [`uid=${UID}&status=configured&q=alpha&${url('https://brand.example/q/*')}`, [tags.written]],
        [`uid=${UID}&status=created`, []],
      ];
      for (const [query, expected] of cases) {
        const got = idsOf(await lines(`?${query}`));
        assert.deepEqual(got, [...expected].sort(), query);
        assert.deepEqual(got, await listed(query), `${query}: as GET /tags lists it`);
      }
    });

    test("another team's tags and another mode's never appear, even by their url or UID", async () => {
      assert.deepEqual(idsOf(await lines(`?uid=${OTHER_UID}`)), []);
      assert.deepEqual(idsOf(await lines(`?url=${encodeURIComponent('https://brand.example/w/other')}`)), []);
      assert.deepEqual(idsOf(await lines(`?url=${encodeURIComponent('https://brand.example/p/1')}`)), [tags.formula]);
      assert.deepEqual(idsOf(await lines('', other.sandbox.key)), theirs);
      assert.deepEqual(idsOf(await lines(`?uid=${UID}`, other.sandbox.key)), []);
      // The production key sees its one tag and none of the sandbox's; the sandbox key none of production's.
      assert.deepEqual(idsOf(await lines('', world.production.key)), [production]);
      assert.deepEqual(idsOf(await lines(`?uid=${UID}`, world.production.key)), []);
      assert.deepEqual(idsOf(await lines('?status=configured', world.production.key)), []);
      assert.ok(!idsOf(await lines()).includes(production));
      const response = await exported('', world.production.key);
      assert.match(response.headers.get('content-disposition')!, /filename="tags-production-/);
      await response.body!.cancel();
    });

    test(`${MANY} tags are 3 statements of the tags table, in id order`, async () => {
      counter.reads = 0;
      counter.on = true;
      const all = await lines('', many.sandbox.key);
      counter.on = false;
      assert.equal(all[0], HEADER);
      assert.deepEqual(
        idsOf(all),
        Array.from({ length: MANY }, (_, i) => `tag_m${String(i).padStart(21, '0')}`),
      );
      assert.equal(all[1], `tag_m${'0'.repeat(21)},ntag_424_dna,https://e.x/m0,created,,600,,,1970-01-01T00:00:00.000001Z,1970-01-01T00:00:00.000001Z`);
      assert.equal(counter.reads, 3);
    });

    test('a client that stops reading stops the reading of the database', { timeout: 120_000 }, async () => {
      counter.reads = 0;
      counter.on = true;
      const response = await exported('', wide.sandbox.key);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = decoder.decode((await reader.read()).value, { stream: true });
      await settled(counter);
      // The sockets and the client's stream buffer some pages ahead (up to half of them under load); what a
      // broken back-pressure does is read every page at once. A failure must not leave the response open.
      if (counter.reads >= WIDE / 1000) await reader.cancel();
      assert.ok(counter.reads < WIDE / 1000, `${counter.reads} of ${WIDE / 1000} pages read while the client read nothing`);
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      counter.on = false;
      assert.equal(counter.reads, WIDE / 1000);
      const all = linesOf(text);
      assert.equal(all[0], HEADER);
      assert.deepEqual(
        idsOf(all),
        Array.from({ length: WIDE }, (_, i) => `tag_w${String(i).padStart(21, '0')}`),
      );
    });

    test('refused: bad filters, paging and ordering parameters (named), a JSON:API-only Accept, no key, a verify key', async () => {
      const body = async (r: Response) => ({ status: r.status, type: r.headers.get('content-type'), body: await r.json() });
      assert.deepEqual(await body(await exported('?status=deleted')), {
        status: 400,
        type: 'application/vnd.api+json',
        body: {
          errors: [{ status: '400', title: 'Invalid query parameter', detail: 'status must be one of created, configured', source: { parameter: 'status' } }],
        },
      });
      assert.deepEqual(
        (await body(await exported('?page=2'))).body.errors[0].detail,
        'page is not a query parameter of this operation; known: q, status, url, uid',
      );
      const cases: [string, string][] = [
        ['page=1', 'page'],
        ['page_size=10', 'page_size'],
        ['order_by[]=id', 'order_by[]'],
        ['order_directions[]=asc', 'order_directions[]'],
        ['cursor=x', 'cursor'],
        ['status=created&status=configured', 'status'],
        ['url=', 'url'],
        ['url=*', 'url'],
        ['url=a%0Ab', 'url'],
        ['uid=04A1B2C3D4E5F', 'uid'],
        ['uid=%00', 'uid'],
        ['q=a&q=b', 'q'],
        ['q=%00', 'q'],
      ];
      for (const [query, parameter] of cases) {
        const r = await exported(`?${query}`);
        const text = await r.text();
        assertBadParameter({ status: r.status, headers: r.headers, text, body: JSON.parse(text) }, parameter);
      }
      const jsonOnly = await exported('', world.sandbox.key, 'application/vnd.api+json');
      assert.equal(jsonOnly.status, 406);
      assert.equal((await jsonOnly.json()).errors[0].detail, 'this request answers text/csv');
      for (const accept of ['text/*', '*/*', 'text/csv;q=0.5, application/json']) {
        const r = await exported('', world.sandbox.key, accept);
        assert.equal(r.status, 200, accept);
        await r.body!.cancel();
      }
      assert.equal((await fetch(`${server.base}/tags/export`)).status, 401);
      const verifyKey = await call(server, 'POST', '/keys', {
        key: world.sandbox.key,
        body: { data: { type: 'keys', attributes: { role: 'verify' } } },
      });
      assert.equal(verifyKey.status, 201, verifyKey.text);
      assert.equal((await exported('', verifyKey.body.data.attributes.key)).status, 403);
    });
  });
