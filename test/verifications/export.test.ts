// GET /verifications/export on both engines: the world's scans with the list's filters as CSV, newest
// first, each scan once, with its tag's url and comment (a comment a spreadsheet would run as a formula
// is neutralised); 100,000 scans stream one page of the database at a time, and a client that stops
// reading stops the reading of the database; bad filters, a JSON:API-only Accept, no key, a verify key,
// another team's and another mode's scans.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { DATABASES, call, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { pad, series } from '../kit/seed.js';
import { settled, statementCounter } from '../kit/statements.js';

const SCANS = 100_000;
const TAGS = 50;
const NOW = Date.UTC(2026, 10, 1) * 1000;
const HEADER = 'id,scanned_at,tag_id,tag_url,tag_comment,genuine,reason,read_counter,signals,country,client_ip,session_id,tamper_permanent,tamper_current';

/** One scan in ten a replay, one in 1,000 a bad CMAC flagged with a counter gap; tag i % TAGS; one a minute, newest at NOW. */
async function seed(server: TestServer, teamId: string, mode: 'sandbox' | 'production', count: number, prefix: string) {
  const k = server.kind;
  await sql`insert into tags (id, team_id, mode, protocol, url, comment, comment_folded, session_duration, status, configured_at, inserted_at, updated_at)
    select 'tag_' || ${sql.lit(prefix)} || ${pad(k, 's.i', 21)}, ${teamId}, ${mode}, 'ntag_424_dna', 'https://e.x/' || ${sql.lit(prefix)} || s.i,
      case when s.i = 0 then '=HYPERLINK("https://evil.example")' when s.i = 1 then 'a, "quoted" comment' else null end, null, 60, 'configured', 1, 1, 1
    from ${series(k, TAGS)}`.execute(server.ctx.db.kysely);
  const reason = sql.raw(`case when s.i % 1000 = 7 then 'bad_cmac' when s.i % 10 = 0 then 'replayed' else 'ok' end`);
  await sql`insert into verifications (id, team_id, mode, tag_id, genuine, reason, read_counter, tamper_permanent, tamper_current, session_id,
      scanned_at, url_hash, client_ip, country, write_generation, signals)
    select 'vrf_' || ${sql.lit(prefix)} || ${pad(k, 's.i', 21)}, ${teamId}, ${mode}, 'tag_' || ${sql.lit(prefix)} || ${pad(k, `s.i % ${TAGS}`, 21)},
      case when ${reason} = 'ok' then 1 else 0 end, ${reason}, s.i, null, null, null, ${sql.lit(NOW)} - (${sql.lit(count)} - s.i) * 60000000, 'h', '203.0.113.9',
      'DE', 1, case when s.i % 1000 = 7 then 'counter_gap' else null end
    from ${series(k, count)}`.execute(server.ctx.db.kysely);
}

/** Splits a CSV body into its lines (no field of these scans holds a line break). */
const linesOf = (text: string) => text.split('\r\n').slice(0, -1);

for (const kind of DATABASES)
  describe(`GET /verifications/export (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    let other: SeededTeam;
    const { counter, plugin } = statementCounter('verifications');

    before(async () => {
      server = await startServer(kind, {}, { plugins: [plugin] });
      world = await server.seedTeam({ name: 'export' });
      other = await server.seedTeam({ name: 'other' });
      await seed(server, world.teamId, 'sandbox', SCANS, '1');
      await seed(server, world.teamId, 'production', 10, '2');
      await seed(server, other.teamId, 'sandbox', 10, '3');
    });
    after(() => server.close());

    const exported = (query = '', key = world.sandbox.key, accept = 'text/csv') =>
      fetch(`${server.base}/verifications/export${query}`, { headers: { authorization: `Bearer ${key}`, accept } });

    test('every scan of the world once, newest first, with its tag; the world only', { timeout: 120_000 }, async () => {
      counter.reads = 0;
      counter.on = true;
      const response = await exported();
      const text = await response.text();
      counter.on = false;
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
      assert.match(response.headers.get('content-disposition')!, /^attachment; filename="scans-sandbox-\d{4}-\d{2}-\d{2}\.csv"$/);
      assert.equal(response.headers.get('content-length'), null, 'streamed, not buffered');
      const lines = linesOf(text);
      assert.equal(lines[0], HEADER);
      assert.equal(lines.length, SCANS + 1);
      const ids = lines.slice(1).map((l) => l.slice(0, l.indexOf(',')));
      const expected = Array.from({ length: SCANS }, (_, i) => `vrf_1${String(SCANS - 1 - i).padStart(21, '0')}`);
      assert.deepEqual(ids, expected);
      // One statement per 1,000 scans: the export never reads the world at once.
      assert.equal(counter.reads, SCANS / 1000);
      const newest = lines[1]!.split(',');
      assert.deepEqual(newest.slice(1, 8), [
        new Date((NOW - 60_000_000) / 1000).toISOString().replace('Z', '000Z'),
        `tag_1${String((SCANS - 1) % TAGS).padStart(21, '0')}`,
        `https://e.x/1${(SCANS - 1) % TAGS}`,
        '',
        'true',
        'ok',
        String(SCANS - 1),
      ]);
    });

    test('the list’s filters; a comment is quoted, and one that starts like a formula is neutralised', async () => {
      const bad = linesOf(await (await exported('?reason=bad_cmac')).text());
      assert.equal(bad.length, 1 + SCANS / 1000);
      assert.ok(bad.slice(1).every((l) => l.includes(',false,bad_cmac,') && l.includes(',counter_gap,')));
      const flagged = linesOf(await (await exported('?flagged=true&genuine=false')).text());
      assert.deepEqual(flagged.slice(1), bad.slice(1));
      const first = `tag_1${'0'.repeat(21)}`;
      const ofTag = linesOf(await (await exported(`?tag_id=${first}&until=${new Date((NOW - (SCANS - 200) * 60_000_000) / 1000).toISOString()}`)).text());
      // Scans 0, 50, 100 and 150 are of tag 0 and before the window's end.
      assert.equal(ofTag.length, 1 + 4);
      assert.ok(ofTag[1]!.includes(`,${first},https://e.x/10,"'=HYPERLINK(""https://evil.example"")",`), ofTag[1]);
      const second = linesOf(await (await exported(`?tag_id=tag_1${'0'.repeat(20)}1&genuine=true`)).text());
      assert.ok(second[1]!.includes(',"a, ""quoted"" comment",true,ok,'), second[1]);
      const production = linesOf(await (await exported('', world.production.key)).text());
      assert.equal(production.length, 1 + 10);
      assert.ok(production.slice(1).every((l) => l.startsWith('vrf_2')));
      const theirs = linesOf(await (await exported('', other.sandbox.key)).text());
      assert.ok(theirs.length === 11 && theirs.slice(1).every((l) => l.startsWith('vrf_3')));
      assert.deepEqual(linesOf(await (await exported(`?tag_id=tag_3${'0'.repeat(21)}`)).text()), [HEADER], "another team's tag lists none");
    });

    test('a client that stops reading stops the reading of the database', { timeout: 120_000 }, async () => {
      counter.reads = 0;
      counter.on = true;
      const response = await exported();
      const reader = response.body!.getReader();
      await reader.read();
      // Wait until the server has stopped on the full socket.
      await settled(counter);
      // The sockets and the client's stream buffer some pages ahead (up to half of them under load); what a
      // broken back-pressure does is read every page at once. A failure must not leave the response open.
      if (counter.reads >= SCANS / 1000) await reader.cancel();
      assert.ok(counter.reads < SCANS / 1000, `${counter.reads} of ${SCANS / 1000} pages read while the client read nothing`);
      let bytes = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.length;
      }
      counter.on = false;
      assert.ok(bytes > 0);
      assert.equal(counter.reads, SCANS / 1000);
    });

    test('refused: bad filters, paging parameters, a JSON:API-only Accept, no key, a verify key', async () => {
      const body = async (r: Response) => ({ status: r.status, type: r.headers.get('content-type'), body: await r.json() });
      assert.deepEqual(await body(await exported('?reason=nope')), {
        status: 400,
        type: 'application/vnd.api+json',
        body: {
          errors: [
            {
              status: '400',
              title: 'Invalid query parameter',
              detail: 'reason must be one of ok, replayed, bad_cmac, bad_picc_data, uid_mismatch',
              source: { parameter: 'reason' },
            },
          ],
        },
      });
      for (const query of ['?page_size=10', '?cursor=x', '?tag_id=nope', '?since=yesterday', '?signal=counter_gap&flagged=false']) {
        const r = await exported(query);
        assert.equal(r.status, 400, query);
        const parameter = (await r.json()).errors[0].source.parameter;
        assert.equal(parameter, query.slice(1).split('=')[0] === 'signal' ? 'flagged' : query.slice(1).split('=')[0], query);
      }
      const jsonOnly = await exported('', world.sandbox.key, 'application/vnd.api+json');
      assert.equal(jsonOnly.status, 406);
      assert.equal((await jsonOnly.json()).errors[0].detail, 'this request answers text/csv');
      for (const accept of ['text/*', '*/*', 'text/csv;q=0.5, application/json']) {
        const r = await exported('', world.sandbox.key, accept);
        assert.equal(r.status, 200, accept);
        await r.body!.cancel();
      }
      assert.equal((await fetch(`${server.base}/verifications/export`)).status, 401);
      const verifyKey = await call(server, 'POST', '/keys', {
        key: world.sandbox.key,
        body: { data: { type: 'keys', attributes: { role: 'verify' } } },
      });
      assert.equal(verifyKey.status, 201, verifyKey.text);
      const refused = await exported('', verifyKey.body.data.attributes.key);
      assert.equal(refused.status, 403);
    });
  });
