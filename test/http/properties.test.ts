// Property-based checks (fast-check) over every route of the platform API
// (docs/hardening.md#property-based-suite), against the real HTTP server on both databases. Bodies are built
// from the attribute rules and valid more often than not, the rest malformed in
// one way or another. For every request: never a 5xx, and every 4xx is a JSON:API
// error document (one error with status and title; 422: one per pointer with
// detail and source.pointer). Whatever a route creates reads back exactly as its
// create answered, with the values that were sent.
//
// Routes: every platform route of test/http/routes.ts that the properties drive; the
// extension's /ext routes have their own tests. Each property runs RUNS cases per
// database (seeded, so a failure replays): 350 per write route and per GET by id,
// and more requests to the GET routes that every create reads back through. The
// count is bounded by what one process can run within the suite's time on a 2-core
// machine; PROPERTY_SCALE=3 runs about three times as many where time allows. The
// counts per route and status are printed as test diagnostics.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test, type TestContext } from 'node:test';
import fc from 'fast-check';
import { EVENT_TYPES, TAG_EVENT_TYPES } from '../../src/webhooks/event-types.js';
import { PROTOCOLS } from '../../src/tags/rules.js';
import { ROUTES } from './routes.js';
import { DATABASES, JSON_API, call, sharedServer, type ApiResponse, type SeededTeam } from '../kit/harness.js';
import { assertTag } from '../tags/helpers.js';
import { assertError } from '../kit/assertions.js';
import { emulated, flipHexDigit, tapUrl } from '../verifications/helpers.js';

/** Cases per database and property; twice that over both. PROPERTY_SCALE=0.1 for a quick look. */
const SCALE = Number(process.env.PROPERTY_SCALE ?? 1);
const RUNS = { write: Math.ceil(350 * SCALE), read: Math.ceil(350 * SCALE), cheap: Math.ceil(350 * SCALE), ids: Math.ceil(1050 * SCALE) };
// A fixed seed per database keeps CI reproducible; PROPERTY_SEED explores others.
const SEED = Number(process.env.PROPERTY_SEED ?? 12);

const run = randomBytes(3).toString('hex');
let serial = 0;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// ---- arbitraries, from the rules (src/tags/rules.ts, src/webhooks/service.ts, src/writer/documents.ts) ----

/** A string of the id shape: prefix + 22 base62 (most such ids exist nowhere). */
const shapedId = (prefix: string) => fc.string({ unit: fc.constantFrom(...BASE62), minLength: 22, maxLength: 22 }).map((s) => `${prefix}_${s}`);
/** Not ids: other prefixes and lengths, NUL, slashes, unicode, very long. */
const junkId = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
  fc.constantFrom('x', 'tag_', 'tag_\u0000', '..', '%2F', 'ses_0000000000000000000000X', 'wrt_' + 'A'.repeat(2000), '\ud800', 'null', '0'),
);

/** The choice between reusing a known value and a fresh one, made at run time (pools grow as cases run). */
const pick = fc.nat({ max: 1_000_000 });
const fromPool = <T>(pool: T[], index: number): T | undefined => (pool.length === 0 ? undefined : pool[index % pool.length]);
const forget = <T>(pool: T[], value: T) => void (pool.includes(value) && pool.splice(pool.indexOf(value), 1));

/** A url as the case will send it: `fresh` ones get a unique prefix when the case runs. */
type UrlChoice = { fresh: string } | { exact: unknown } | { bytes: number } | { reuse: number };
const pathText = fc.string({ unit: fc.constantFrom(...'abcxyzABC0189-._~/?=&%', 'é', 'ü', '€', '😀'), maxLength: 40 });
const urlChoice: fc.Arbitrary<UrlChoice> = fc.oneof(
  { weight: 24, arbitrary: pathText.map((fresh) => ({ fresh })) },
  { weight: 1, arbitrary: fc.integer({ min: 2040, max: 2056 }).map((bytes) => ({ bytes })) }, // around the 2048-byte limit
  { weight: 1, arbitrary: pick.map((reuse) => ({ reuse })) }, // a url already taken
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map((exact) => ({ exact })) }, // control characters, empty
  { weight: 1, arbitrary: fc.constantFrom('https://brand.example/a\ud800', 'https://brand.example/\udc00b', 'a\tb', 'x\u0000').map((exact) => ({ exact })) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 })).map((exact) => ({ exact })) },
);
function resolveUrl(choice: UrlChoice, used: string[], host = 'brand.example'): unknown {
  if ('fresh' in choice) return `https://${host}/${run}/${++serial}/${choice.fresh}`;
  if ('bytes' in choice) {
    const head = `https://${host}/${run}/${++serial}/`;
    return head + 'p'.repeat(choice.bytes - head.length);
  }
  if ('reuse' in choice) return fromPool(used, choice.reuse) ?? `https://${host}/${run}/${++serial}`;
  return choice.exact;
}

const comment = fc.oneof(
  { weight: 10, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 40, maxLength: 60 }) }, // about the 50-character limit; controls
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.boolean(), fc.dictionary(fc.string(), fc.string(), { maxKeys: 1 })) },
);
const sessionDuration = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 1, max: 3600 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 3601, 1.5, '600', null, 2 ** 53) },
);
const protocol = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...PROTOCOLS) },
  { weight: 1, arbitrary: fc.constantFrom('ntag_215', '', 'NTAG_424_DNA', 7) },
);
/** `arbitrary` in one case of `oneIn`, else undefined (fc.option's freq is the other way round: nil once in freq). */
const rarely = <T>(arbitrary: fc.Arbitrary<T>, oneIn: number) => fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
/** Now and then an attribute the operation does not take (read-only or unknown). */
const stray = rarely(
  fc.constantFrom({ status: 'configured' }, { id: 'tag_0000000000000000000000' }, { colour: 'red' }, { inserted_at: '2020-01-01T00:00:00.000000Z' }),
  12,
);

// Nine entries in ten follow every rule; the tenth mixes rule-breaking values in (a batch of up to three
// entries is then still valid about three times in four).
const validEntry = fc.record({
  protocol: fc.constantFrom(...PROTOCOLS),
  url: pathText.map((fresh): UrlChoice => ({ fresh })),
  comment: fc.option(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.constant(null)), { freq: 2, nil: undefined }),
  session_duration: fc.option(fc.integer({ min: 1, max: 3600 }), { freq: 2, nil: undefined }),
  stray: fc.constant(undefined),
});
const mixedEntry = fc.record({
  protocol: fc.option(protocol, { freq: 25, nil: undefined }),
  url: fc.option(urlChoice, { freq: 25, nil: undefined }),
  comment: fc.option(comment, { freq: 2, nil: undefined }),
  session_duration: fc.option(sessionDuration, { freq: 2, nil: undefined }),
  stray,
});
const tagEntry = fc.oneof({ weight: 9, arbitrary: validEntry }, { weight: 1, arbitrary: mixedEntry });
type TagEntry = typeof mixedEntry extends fc.Arbitrary<infer T> ? T : never;
function tagAttributes(e: TagEntry, usedUrls: string[], keys: readonly string[] = ['protocol', 'url', 'comment', 'session_duration']): Record<string, unknown> {
  const a: Record<string, unknown> = { ...e.stray };
  if (keys.includes('protocol') && e.protocol !== undefined) a.protocol = e.protocol;
  if (keys.includes('url') && e.url !== undefined) a.url = resolveUrl(e.url, usedUrls);
  if (keys.includes('comment') && e.comment !== undefined) a.comment = e.comment;
  if (keys.includes('session_duration') && e.session_duration !== undefined) a.session_duration = e.session_duration;
  return a;
}

/** Bodies that are not a usable document: broken JSON, other JSON, wrong shapes. */
const junkBody = fc.oneof(
  fc.constantFrom(
    '{"data":',
    '',
    'null',
    '[]',
    '{"data":{}}',
    '{"data":[]}',
    '{"data":null}',
    '\u0000',
    '{"data":[{"type":"tags"}]}',
    '{"data":{"type":"x","attributes":{}}}',
  ),
  fc.json({ maxDepth: 2 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => ({ data: v })),
);
/** Mostly the valid document, sometimes junk (about 1 in 12). */
const maybeJunk = rarely(junkBody, 12);

// ---- judging every answer ----

type Tally = Map<string, Map<number, number>>;
function judge(tally: Tally, route: string, r: ApiResponse): void {
  assert.ok(r.status < 500, `${route}: ${r.status} ${r.text}`);
  const counts = tally.get(route) ?? new Map<number, number>();
  counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  tally.set(route, counts);
  if (r.status < 400) return;
  // A refused query parameter is named (JSON:API source.parameter, docs/read-api.md); other errors carry no detail.
  if (r.status === 400 && r.body?.errors?.[0]?.source?.parameter !== undefined) {
    for (const e of r.body.errors)
      assert.deepEqual([Object.keys(e).sort(), Object.keys(e.source)], [['detail', 'source', 'status', 'title'], ['parameter']], r.text);
    return;
  }
  // Refusals that explain themselves: why a key cannot roll, what a refused key lacks (a role, or the reach).
  const explained = (route === 'POST /keys/:id/roll' && r.status === 409) || r.status === 403;
  if (r.status !== 422) return assertError(r, r.status, { detail: explained });
  assert.equal(r.headers.get('content-type'), JSON_API, r.text);
  assert.deepEqual(Object.keys(r.body), ['errors']);
  assert.ok(r.body.errors.length > 0, r.text);
  for (const e of r.body.errors) {
    assert.deepEqual(Object.keys(e).sort(), ['detail', 'source', 'status', 'title'], r.text);
    assert.equal(e.status, '422');
    assert.ok(typeof e.title === 'string' && e.title.length > 0 && typeof e.detail === 'string' && e.detail.length > 0, r.text);
    assert.deepEqual(Object.keys(e.source), ['pointer']);
    assert.match(e.source.pointer, /^\/data(\/|$)/, r.text);
  }
}

for (const [dbIndex, kind] of DATABASES.entries()) {
  describe(`platform API properties (${kind})`, () => {
    const suite = sharedServer(kind);
    const tally: Tally = new Map();
    /** Tags of suite.world's sandbox that exist (deleted ones leave). */
    const tags: string[] = [];
    const urls: string[] = [];
    const params = (runs: number) => ({ numRuns: runs, seed: SEED + dbIndex, endOnFailure: true });
    const s = () => suite.server;
    const key = () => suite.world.sandbox.key;
    // The team's people are managed with a production key (a sandbox key never reaches them).
    const live = () => suite.world.production.key;

    async function property<T>(t: TestContext, routes: string[], runs: number, arbitrary: fc.Arbitrary<T>, body: (value: T) => Promise<void>) {
      await fc.assert(fc.asyncProperty(arbitrary, body), params(runs));
      for (const route of routes) {
        const counts = [...(tally.get(route) ?? new Map()).entries()].sort(([a], [b]) => a - b);
        t.diagnostic(`${kind} ${route}: ${counts.reduce((n, [, c]) => n + c, 0)} requests, ${counts.map(([status, c]) => `${status}×${c}`).join(' ')}`);
      }
    }

    /** A valid POST /tags of `n` fresh tags (set-up inside cases that need a tag of their own). */
    async function freshTags(n: number, world: SeededTeam = suite.world): Promise<string[]> {
      const data = Array.from({ length: n }, () => ({
        type: 'tags',
        attributes: { protocol: 'ntag_424_dna', url: `https://brand.example/${run}/${++serial}` },
      }));
      const r = await call(s(), 'POST', '/tags', { key: world.sandbox.key, body: { data } });
      assert.equal(r.status, 201, r.text);
      return r.body.data.map((t: any) => t.id);
    }

    /** GET a resource and compare it with what its write answered. */
    async function readsBack(route: string, path: string, expected: unknown, k = key()): Promise<void> {
      const read = await call(s(), 'GET', path, { key: k });
      judge(tally, route, read);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(read.body.data, expected);
    }

    const idChoice = (prefix: string) =>
      fc.oneof(
        { weight: 8, arbitrary: pick.map((known) => ({ known })) },
        { weight: 1, arbitrary: shapedId(prefix).map((id) => ({ id })) },
        { weight: 1, arbitrary: junkId.map((id) => ({ id })) },
      );
    const resolveId = (choice: { known: number } | { id: string }, pool: string[]) =>
      'known' in choice ? (fromPool(pool, choice.known) ?? 'none') : choice.id;
    // A lone surrogate cannot be percent-encoded as UTF-8: sent as the bytes SQLite would have stored for it.
    const pathOf = (id: string) => [...id].map((ch) => (/^[\ud800-\udfff]$/.test(ch) ? '%ED%A0%80' : encodeURIComponent(ch))).join('');

    test('POST /tags, then GET /tags/:id returns exactly what was created', async (t) => {
      const arbitrary = fc.record({ entries: fc.array(tagEntry, { minLength: 1, maxLength: 3 }), junk: maybeJunk, empty: rarely(fc.constant(true), 40) });
      await property(t, ['POST /tags', 'GET /tags/:id'], RUNS.write, arbitrary, async ({ entries, junk, empty }) => {
        const sent = entries.map((e) => tagAttributes(e, urls));
        const body = junk ?? { data: empty ? [] : sent.map((attributes) => ({ type: 'tags', attributes })) };
        const r = await call(s(), 'POST', '/tags', { key: key(), body });
        judge(tally, 'POST /tags', r);
        if (r.status !== 201) return;
        assert.equal(r.body.data.length, sent.length);
        for (const [i, created] of (r.body.data as any[]).entries()) {
          const a = sent[i]!;
          assertTag(created, {
            protocol: a.protocol,
            url: a.url,
            comment: a.comment ?? null,
            session_duration: a.session_duration ?? 600,
            status: 'created',
            configured_at: null,
          });
          await readsBack('GET /tags/:id', `/tags/${created.id}`, created);
          tags.push(created.id);
          urls.push(created.attributes.url);
        }
      });
    });

    test('GET /tags with any query', async (t) => {
      const field = fc.constantFrom('id', 'protocol', 'inserted_at', 'updated_at', 'configured_at', 'comment', 'url', 'status');
      const arbitrary = fc.record({
        page: fc.option(
          fc.oneof(
            { weight: 20, arbitrary: fc.integer({ min: 1, max: 4 }).map(String) },
            { weight: 1, arbitrary: fc.constantFrom('0', '-1', 'x', '1.5', '', '99999999999999999999') },
          ),
          { nil: undefined },
        ),
        page_size: fc.option(
          fc.oneof({ weight: 20, arbitrary: fc.integer({ min: 1, max: 100 }).map(String) }, { weight: 1, arbitrary: fc.constantFrom('0', '101', 'ten', '') }),
          { nil: undefined },
        ),
        q: fc.option(
          fc.oneof(
            fc.string({ unit: 'grapheme', maxLength: 6 }),
            pick.map((i) => fromPool(tags, i) ?? 'x'),
            fc.string({ unit: 'binary', maxLength: 6 }),
          ),
          { nil: undefined },
        ),
        order: fc.uniqueArray(
          fc.tuple(
            fc.oneof({ weight: 20, arbitrary: field }, { weight: 1, arbitrary: fc.constantFrom('size', '', 'ID') }),
            fc.oneof({ weight: 20, arbitrary: fc.constantFrom('asc', 'desc') }, { weight: 1, arbitrary: fc.constantFrom('up', 'ASC') }),
          ),
          { maxLength: 2, selector: ([f]) => f },
        ),
        directions: fc.oneof({ weight: 20, arbitrary: fc.constant('paired') }, { weight: 1, arbitrary: fc.constantFrom('none', 'extra') }),
      });
      await property(t, ['GET /tags'], RUNS.cheap, arbitrary, async (c) => {
        const parts: string[] = [];
        for (const name of ['page', 'page_size', 'q'] as const) if (c[name] !== undefined) parts.push(`${name}=${pathOf(c[name]!)}`);
        for (const [f] of c.order) parts.push(`order_by[]=${encodeURIComponent(f)}`);
        if (c.directions !== 'none') for (const [, d] of c.order) parts.push(`order_directions[]=${d}`);
        if (c.directions === 'extra') parts.push('order_directions[]=asc');
        const r = await call(s(), 'GET', `/tags?${parts.join('&')}`, { key: key() });
        judge(tally, 'GET /tags', r);
        if (r.status !== 200) return;
        // page_size above 100 is capped, not refused (docs/api.md#tags).
        const size = Math.min(Number(c.page_size ?? 10), 100);
        assert.deepEqual(r.body.meta.page_size, size);
        assert.ok(r.body.data.length <= size);
        for (const tag of r.body.data) assertTag(tag);
      });
    });

    test('PATCH /tags/:id, then GET returns the changed tag', async (t) => {
      const arbitrary = fc.record({
        id: idChoice('tag'),
        entry: tagEntry,
        only: fc.subarray(['url', 'comment', 'session_duration'] as const),
        dataId: fc.oneof({ weight: 8, arbitrary: fc.constant('same') }, { weight: 1, arbitrary: fc.constantFrom('absent', 'other') }),
        junk: maybeJunk,
      });
      await property(t, ['PATCH /tags/:id'], RUNS.write, arbitrary, async ({ id: choice, entry, only, dataId, junk }) => {
        const id = resolveId(choice, tags);
        const attributes = tagAttributes(entry, urls, only);
        const data: Record<string, unknown> = { type: 'tags', attributes };
        if (dataId !== 'absent') data.id = dataId === 'same' ? id : 'tag_0000000000000000000000';
        const r = await call(s(), 'PATCH', `/tags/${pathOf(id)}`, { key: key(), body: junk ?? { data } });
        judge(tally, 'PATCH /tags/:id', r);
        if (r.status !== 200) return;
        assertTag(r.body.data, Object.fromEntries(Object.entries(attributes).filter(([name]) => only.includes(name as never))));
        await readsBack('GET /tags/:id', `/tags/${id}`, r.body.data);
        if (typeof attributes.url === 'string') urls.push(attributes.url);
      });
    });

    test('PATCH /tags (batch), then GET returns every changed tag', async (t) => {
      const update = fc.record({ id: idChoice('tag'), entry: tagEntry, only: fc.subarray(['url', 'comment', 'session_duration'] as const, { minLength: 1 }) });
      const arbitrary = fc.record({ updates: fc.array(update, { minLength: 1, maxLength: 3 }), junk: maybeJunk });
      await property(t, ['PATCH /tags'], RUNS.write, arbitrary, async ({ updates, junk }) => {
        const sent = updates.map((u) => ({ type: 'tags', id: resolveId(u.id, tags), attributes: tagAttributes(u.entry, urls, u.only) }));
        const r = await call(s(), 'PATCH', '/tags', { key: key(), body: junk ?? { data: sent } });
        judge(tally, 'PATCH /tags', r);
        if (r.status !== 200) return;
        assert.equal(r.body.data.length, sent.length);
        // A tag listed twice ends as its last entry left it.
        const last = new Map((r.body.data as any[]).map((tag) => [tag.id, tag]));
        for (const [id, tag] of last) await readsBack('GET /tags/:id', `/tags/${id}`, tag);
      });
    });

    test('DELETE /tags/:id: deleted once, then 404', async (t) => {
      const arbitrary = fc.record({
        target: fc.oneof({ weight: 6, arbitrary: fc.constant({ fresh: true }) }, { weight: 1, arbitrary: idChoice('tag') }),
        withBody: fc.boolean(),
      });
      await property(t, ['DELETE /tags/:id'], RUNS.write, arbitrary, async ({ target, withBody }) => {
        const id = 'fresh' in target ? (await freshTags(1))[0]! : resolveId(target, tags);
        // Node's fetch sends Content-Type with an empty body on DELETE: accepted like no body.
        const r = await call(s(), 'DELETE', `/tags/${pathOf(id)}`, { key: key(), ...(withBody ? { body: '' } : {}) });
        judge(tally, 'DELETE /tags/:id', r);
        if ('fresh' in target) assert.equal(r.status, 204, r.text);
        if (r.status !== 204) return;
        forget(tags, id);
        const gone = await call(s(), 'GET', `/tags/${id}`, { key: key() });
        judge(tally, 'GET /tags/:id', gone);
        assert.equal(gone.status, 404);
        judge(tally, 'DELETE /tags/:id', await call(s(), 'DELETE', `/tags/${id}`, { key: key() }));
      });
    });

    test('DELETE /tags (batch): every listed tag gone', async (t) => {
      const arbitrary = fc.record({
        fresh: fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 1, max: 3 }) }, { weight: 1, arbitrary: fc.constant(0) }),
        others: fc.array(idChoice('tag'), { maxLength: 1 }),
        junk: maybeJunk,
      });
      await property(t, ['DELETE /tags'], RUNS.write, arbitrary, async ({ fresh, others, junk }) => {
        const ids = [...(fresh > 0 ? await freshTags(fresh) : []), ...others.map((o) => resolveId(o, tags))];
        const r = await call(s(), 'DELETE', '/tags', { key: key(), body: junk ?? { data: ids.map((id) => ({ type: 'tags', id })) } });
        judge(tally, 'DELETE /tags', r);
        if (r.status !== 200) return;
        for (const id of new Set(ids)) {
          forget(tags, id);
          const gone = await call(s(), 'GET', `/tags/${id}`, { key: key() });
          judge(tally, 'GET /tags/:id', gone);
          assert.equal(gone.status, 404);
        }
      });
    });

    test('GET /tags/:id, /teams/:id, /keys/:id with any id', async (t) => {
      const route = fc.constantFrom('tags', 'teams', 'keys');
      const arbitrary = fc.record({
        route,
        own: fc.boolean(),
        id: fc.oneof(shapedId('tag'), shapedId('team'), shapedId('key'), junkId),
        otherWorld: fc.boolean(),
      });
      await property(t, ['GET /tags/:id', 'GET /teams/:id', 'GET /keys/:id'], RUNS.ids, arbitrary, async (c) => {
        const w = suite.world;
        const own = { tags: fromPool(tags, c.id.length), teams: w.teamId, keys: w.sandbox.id }[c.route];
        const id = c.own && own !== undefined ? own : c.id;
        // The production key sees neither the sandbox's tags nor its key.
        const k = c.otherWorld ? w.production.key : w.sandbox.key;
        const r = await call(s(), 'GET', `/${c.route}/${pathOf(id)}`, { key: k });
        judge(tally, `GET /${c.route}/:id`, r);
        // Teams are seen from both modes; tags and keys only from their own.
        assert.equal(r.status, id === own && (!c.otherWorld || c.route === 'teams') ? 200 : 404, `${c.route} ${id}: ${r.text}`);
      });
    });

    test("a tag's chip, writes and links with any id", async (t) => {
      const arbitrary = fc.record({
        part: fc.constantFrom('chip', 'writes', 'links'),
        own: fc.boolean(),
        id: fc.oneof(shapedId('tag'), junkId),
        otherWorld: fc.boolean(),
      });
      await property(t, ['GET /tags/:id/chip', 'GET /tags/:id/writes', 'GET /tags/:id/links'], RUNS.ids, arbitrary, async (c) => {
        const w = suite.world;
        const own = fromPool(tags, c.id.length);
        const id = c.own && own !== undefined ? own : c.id;
        const r = await call(s(), 'GET', `/tags/${pathOf(id)}/${c.part}`, { key: c.otherWorld ? w.production.key : w.sandbox.key });
        judge(tally, `GET /tags/:id/${c.part}`, r);
        // The pool's tags are not written: no chip, and writes and links of the tag's own world only.
        assert.equal(r.status, id === own && !c.otherWorld && c.part !== 'chip' ? 200 : 404, `${c.part} ${id}: ${r.text}`);
      });
    });

    test('the read API: lists, statistics, deliveries and redelivery under random ids and query parameters', async (t) => {
      const READS = [
        'GET /teams/current',
        'GET /keys',
        'GET /users',
        'GET /audit-events',
        'GET /verifications',
        'GET /verifications/stats',
        'GET /verifications/export',
        'GET /tags/export',
        'GET /verifications/:id/ownership-proofs',
        'GET /verifications/:id/claims',
        'GET /webhooks',
        'GET /webhooks/:id/deliveries',
        'POST /webhooks/:id/deliveries/:eventId/redeliver',
        'GET /products',
        'GET /tokens',
        'GET /tokens/:id/holdings',
      ];
      const arbitrary = fc.record({
        route: fc.constantFrom(...READS),
        id: fc.oneof(shapedId('vrf'), shapedId('whk'), junkId),
        event: fc.oneof(shapedId('evt'), junkId),
        name: fc.constantFrom(
          'page_size',
          'cursor',
          'since',
          'until',
          'genuine',
          'reason',
          'signal',
          'flagged',
          'tag_id',
          'status',
          'q',
          'url',
          'uid',
          'country',
          'actor',
          'resource',
          'operation',
          'unknown',
        ),
        value: fc.oneof(fc.string(), fc.integer().map(String)),
      });
      await property(t, READS, RUNS.ids, arbitrary, async (c) => {
        const path = c.route
          .slice(c.route.indexOf(' ') + 1)
          .replace(':id', pathOf(c.id))
          .replace(':eventId', pathOf(c.event));
        const query = `?${encodeURIComponent(c.name)}=${encodeURIComponent(c.value)}`;
        const r = await call(s(), c.route.startsWith('POST') ? 'POST' : 'GET', path + query, { key: c.route === 'GET /users' ? live() : key() });
        judge(tally, c.route, r);
      });
    });

    test('PATCH /teams/current: any thresholds; GET /teams/current then shows exactly the ones accepted', async (t) => {
      const THRESHOLDS = { counter_gap: [1, 16_777_215], country_jump_window: [0, 2_592_000], replay_burst: [1, 10_000] } as const;
      const value = (name: keyof typeof THRESHOLDS) => {
        const [min, max] = THRESHOLDS[name];
        return fc.oneof(
          { weight: 6, arbitrary: fc.integer({ min, max }) },
          { weight: 2, arbitrary: fc.constantFrom(min - 1, max + 1, min, max) },
          { weight: 1, arbitrary: fc.oneof(fc.double(), fc.string(), fc.constant(null), fc.boolean(), fc.array(fc.nat(), { maxLength: 2 })) },
        );
      };
      const thresholds = fc.record(
        { counter_gap: value('counter_gap'), country_jump_window: value('country_jump_window'), replay_burst: value('replay_burst') },
        { requiredKeys: [] },
      );
      const arbitrary = fc.record({
        thresholds: fc.oneof({ weight: 8, arbitrary: thresholds }, { weight: 1, arbitrary: fc.oneof(fc.string(), fc.nat(), fc.constant(null)) }),
        other: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('name', 'parent_id', 'junk') }),
        stray: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.nat() }),
        junk: maybeJunk,
      });
      let current = (await call(s(), 'GET', '/teams/current', { key: key() })).body.data.attributes.signal_thresholds;
      await property(t, ['PATCH /teams/current'], RUNS.cheap, arbitrary, async (c) => {
        const attributes: Record<string, unknown> = { signal_thresholds: c.thresholds };
        if (c.other !== undefined) attributes[c.other] = 'x';
        if (c.stray !== undefined && typeof c.thresholds === 'object' && c.thresholds !== null) (c.thresholds as Record<string, unknown>).stray = c.stray;
        const r = await call(s(), 'PATCH', '/teams/current', { key: key(), body: c.junk ?? { data: { type: 'teams', attributes } } });
        judge(tally, 'PATCH /teams/current', r);
        if (r.status === 200) {
          assert.deepEqual(r.body.data.attributes.signal_thresholds, { ...current, ...(c.thresholds as object) });
          current = r.body.data.attributes.signal_thresholds;
        } else assert.ok(r.status === 400 || r.status === 422, r.text);
        const read = await call(s(), 'GET', '/teams/current', { key: key() });
        judge(tally, 'GET /teams/current', read);
        assert.deepEqual(read.body.data.attributes.signal_thresholds, current);
      });
    });

    test('POST /verifications, then GET /verifications/:id and GET /sessions/:id', async (t) => {
      const chips = await Promise.all(['ntag_424_dna', 'ntag_424_dna_tag_tamper', 'ntag_223_dna'].map((p) => emulated(s(), suite.world.teamId, p)));
      const taps: string[] = [];
      const verifications: string[] = [];
      const sessions: string[] = [];
      const arbitrary = fc.record({
        scan: fc.oneof(
          { weight: 6, arbitrary: fc.nat({ max: chips.length - 1 }).map((chip) => ({ chip })) },
          { weight: 1, arbitrary: pick.map((replay) => ({ replay })) },
          { weight: 1, arbitrary: fc.record({ flip: pick, digit: fc.integer({ min: 1, max: 20 }) }) },
          { weight: 1, arbitrary: urlChoice.map((url) => ({ url })) },
        ),
        clientIp: fc.option(
          fc.oneof(
            { weight: 4, arbitrary: fc.oneof(fc.ipV4(), fc.ipV6()).map((value) => ({ value, valid: true })) },
            { weight: 1, arbitrary: fc.constantFrom('999.1.1.1', '', 'localhost', 5).map((value) => ({ value, valid: false })) },
          ),
          { freq: 3, nil: undefined },
        ),
        junk: maybeJunk,
      });
      await property(t, ['POST /verifications', 'GET /verifications/:id', 'GET /sessions/:id'], RUNS.write, arbitrary, async ({ scan, clientIp, junk }) => {
        let url: unknown;
        if ('chip' in scan) taps.push((url = await tapUrl(s(), chips[scan.chip]!.id)));
        else if ('replay' in scan) url = fromPool(taps, scan.replay) ?? 'https://example.com/';
        else if ('flip' in scan) url = flipHexDigit(fromPool(taps, scan.flip) ?? 'https://example.com/?cmac=00', scan.digit);
        else url = resolveUrl(scan.url, urls);
        const attributes: Record<string, unknown> = { url };
        if (clientIp !== undefined) attributes.client_ip = clientIp.value;
        const r = await call(s(), 'POST', '/verifications', { key: key(), body: junk ?? { data: { type: 'verifications', attributes } } });
        judge(tally, 'POST /verifications', r);
        if ('chip' in scan && junk === undefined && clientIp?.valid !== false) assert.equal(r.status, 201, r.text);
        if (r.status !== 201) return;
        verifications.push(r.body.data.id);
        await readsBack('GET /verifications/:id', `/verifications/${r.body.data.id}`, r.body.data);
        const session = r.body.data.attributes.session_id;
        if (session === null) return;
        sessions.push(session);
        const read = await call(s(), 'GET', `/sessions/${session}`, { key: key() });
        judge(tally, 'GET /sessions/:id', read);
        assert.equal(read.status, 200, read.text);
        assert.ok(read.body.data.attributes.verification_ids.includes(r.body.data.id));
      });
      // Reads by any id: own ones 200, the same id under the production key 404, the rest 404.
      const reads = fc.record({
        route: fc.constantFrom('verifications', 'sessions'),
        id: fc.oneof(
          pick.map((known) => ({ known })),
          shapedId('ver').map((id) => ({ id })),
          shapedId('ses').map((id) => ({ id })),
          junkId.map((id) => ({ id })),
        ),
        production: fc.boolean(),
      });
      await property(t, ['GET /verifications/:id', 'GET /sessions/:id'], RUNS.read, reads, async (c) => {
        const id = resolveId(c.id, c.route === 'verifications' ? verifications : sessions);

        const r = await call(s(), 'GET', `/${c.route}/${pathOf(id)}`, { key: c.production ? suite.world.production.key : key() });
        judge(tally, `GET /${c.route}/:id`, r);
        const pool = c.route === 'verifications' ? verifications : sessions;
        assert.equal(r.status, 'known' in c.id && pool.length > 0 && !c.production ? 200 : 404, r.text);
      });
    });

    test('webhooks: POST, PATCH, DELETE and GET /webhooks/:id', async (t) => {
      // A team of their own: every tag event of a world fans out to its webhooks.
      const team = await s().seedTeam({ name: 'hooks' });
      const hooks: string[] = [];
      const hookUrl = fc.oneof(
        { weight: 8, arbitrary: pathText.map((fresh) => ({ fresh })) },
        {
          weight: 1,
          arbitrary: fc
            .oneof(
              fc.ipV4(),
              fc.ipV6().map((ip) => `[${ip}]`),
              fc.constantFrom('localhost', '[::ffff:10.0.0.1]', '[64:ff9b::a9fe:a9fe]', '169.254.169.254'),
            )
            .map((host) => ({ exact: `https://${host}/hook` })),
        },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom('http://hooks.example/h', 'ftp://hooks.example/', 'https://u:p@hooks.example/', 'not a url', '')
            .map((exact) => ({ exact })),
        },
        { weight: 1, arbitrary: urlChoice },
      );
      const events = fc.oneof(
        { weight: 6, arbitrary: fc.subarray([...EVENT_TYPES], { minLength: 1 }) },
        { weight: 1, arbitrary: fc.constantFrom([], ['tag.created', 'tag.created'], ['tag.exploded'], 'tag.created', [1]) },
      );
      const resolveHookUrl = (c: UrlChoice) => resolveUrl(c, [], 'hooks.example');
      const withoutSecret = (data: any) => ({ ...data, attributes: Object.fromEntries(Object.entries(data.attributes).filter(([k]) => k !== 'secret')) });

      const creates = fc.record({
        url: fc.option(hookUrl, { freq: 25, nil: undefined }),
        events: fc.option(events, { freq: 4, nil: undefined }),
        stray,
        junk: maybeJunk,
      });
      await property(t, ['POST /webhooks', 'GET /webhooks/:id'], RUNS.write, creates, async (c) => {
        const attributes: Record<string, unknown> = { ...c.stray };
        if (c.url !== undefined) attributes.url = resolveHookUrl(c.url);
        if (c.events !== undefined) attributes.events = c.events;
        const r = await call(s(), 'POST', '/webhooks', { key: team.production.key, body: c.junk ?? { data: { type: 'webhooks', attributes } } });
        judge(tally, 'POST /webhooks', r);
        if (r.status !== 201) return;
        const a = r.body.data.attributes;
        assert.equal(a.url, attributes.url);
        assert.deepEqual(a.events, attributes.events ?? [...TAG_EVENT_TYPES]);
        assert.match(a.secret, /^whsec_/);
        hooks.push(r.body.data.id);
        await readsBack('GET /webhooks/:id', `/webhooks/${r.body.data.id}`, withoutSecret(r.body.data), team.production.key);
      });

      const updates = fc.record({
        id: idChoice('whk'),
        url: fc.option(hookUrl, { freq: 2, nil: undefined }),
        events: fc.option(events, { freq: 2, nil: undefined }),
        enabled: fc.option(fc.oneof({ weight: 5, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constantFrom('yes', 1, null) }), {
          freq: 3,
          nil: undefined,
        }),
        rotate: fc.option(fc.oneof({ weight: 5, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constant('true') }), { freq: 4, nil: undefined }),
        junk: maybeJunk,
      });
      await property(t, ['PATCH /webhooks/:id'], RUNS.write, updates, async (c) => {
        const id = resolveId(c.id, hooks);
        const attributes: Record<string, unknown> = {};
        if (c.url !== undefined) attributes.url = resolveHookUrl(c.url);
        if (c.events !== undefined) attributes.events = c.events;
        if (c.enabled !== undefined) attributes.enabled = c.enabled;
        if (c.rotate !== undefined) attributes.rotate_secret = c.rotate;
        const r = await call(s(), 'PATCH', `/webhooks/${pathOf(id)}`, {
          key: team.production.key,
          body: c.junk ?? { data: { type: 'webhooks', id, attributes } },
        });
        judge(tally, 'PATCH /webhooks/:id', r);
        if (r.status !== 200) return;
        for (const name of ['url', 'events', 'enabled'] as const) if (name in attributes) assert.deepEqual(r.body.data.attributes[name], attributes[name]);
        assert.equal('secret' in r.body.data.attributes, attributes.rotate_secret === true);
        await readsBack('GET /webhooks/:id', `/webhooks/${id}`, withoutSecret(r.body.data), team.production.key);
      });

      const deletes = fc.record({ id: idChoice('whk'), sandbox: fc.boolean() });
      await property(t, ['DELETE /webhooks/:id', 'GET /webhooks/:id'], RUNS.read, deletes, async (c) => {
        const id = resolveId(c.id, hooks);
        const k = c.sandbox ? team.sandbox.key : team.production.key;
        const read = await call(s(), 'GET', `/webhooks/${pathOf(id)}`, { key: k });
        judge(tally, 'GET /webhooks/:id', read);
        const r = await call(s(), 'DELETE', `/webhooks/${pathOf(id)}`, { key: k });
        judge(tally, 'DELETE /webhooks/:id', r);
        assert.equal(r.status, read.status === 200 ? 204 : 404, r.text);
        if (r.status !== 204) return;
        forget(hooks, id);
        assert.equal((await call(s(), 'GET', `/webhooks/${id}`, { key: k })).status, 404);
      });
    });

    test('writer: POST /writer/writes, GET /writer/writes/:id, POST …/responses', async (t) => {
      const writes: string[] = [];
      const starts = fc.record({
        tag: fc.oneof({ weight: 6, arbitrary: fc.constant({ fresh: true }) }, { weight: 2, arbitrary: idChoice('tag') }),
        junk: maybeJunk,
      });
      await property(t, ['POST /writer/writes', 'GET /writer/writes/:id'], RUNS.write, starts, async (c) => {
        const tagId = 'fresh' in c.tag ? (await freshTags(1))[0]! : resolveId(c.tag, tags);
        const r = await call(s(), 'POST', '/writer/writes', { key: key(), body: c.junk ?? { data: { type: 'writes', attributes: { tag_id: tagId } } } });
        judge(tally, 'POST /writer/writes', r);
        if ('fresh' in c.tag && c.junk === undefined) assert.equal(r.status, 201, r.text);
        if (r.status !== 201) return;
        assert.equal(r.body.data.attributes.tag_id, tagId);
        writes.push(r.body.data.id);
        await readsBack('GET /writer/writes/:id', `/writer/writes/${r.body.data.id}`, r.body.data);
      });

      const apdu = fc.oneof(
        fc.constantFrom('9000', '9100', '91AE', '6A82', '9000'),
        fc.uint8Array({ minLength: 2, maxLength: 40 }).map((b) => Buffer.from(b).toString('hex')),
      );
      const answers = fc.record({
        id: idChoice('wrt'),
        responses: fc.oneof(
          { weight: 20, arbitrary: fc.array(apdu, { maxLength: 4 }) },
          { weight: 1, arbitrary: fc.constantFrom(['9'], ['zz00'], 'x', [1], Array(65).fill('9000')) },
        ),
        removed: fc.option(fc.oneof({ weight: 20, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constant('no') }), { freq: 4, nil: undefined }),
        abort: fc.option(fc.boolean(), { freq: 4, nil: undefined }),
        roundTrip: rarely(fc.oneof({ weight: 4, arbitrary: fc.nat({ max: 5 }) }, { weight: 1, arbitrary: fc.constantFrom(-1, 1.5, '0') }), 4),
        junk: maybeJunk,
      });
      await property(t, ['POST /writer/writes/:id/responses'], RUNS.write, answers, async (c) => {
        const id = resolveId(c.id, writes);
        const attributes: Record<string, unknown> = { responses: c.responses };
        if (c.removed !== undefined) attributes.removed = c.removed;
        if (c.abort !== undefined) attributes.abort = c.abort;
        if (c.roundTrip !== undefined) attributes.round_trip = c.roundTrip;
        const r = await call(s(), 'POST', `/writer/writes/${pathOf(id)}/responses`, {
          key: key(),
          body: c.junk ?? { data: { type: 'writes', id, attributes } },
        });
        judge(tally, 'POST /writer/writes/:id/responses', r);
        if (r.status === 200) await readsBack('GET /writer/writes/:id', `/writer/writes/${id}`, r.body.data);
      });
    });

    test('keys: POST /keys, roll, revoke and GET /keys/current with any attributes and ids', async (t) => {
      const ROLE_VALUES = ['admin', 'write', 'read', 'verify'];
      const attribute = <T>(good: fc.Arbitrary<T>) =>
        fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean()) });
      const arbitrary = fc.record({
        op: fc.constantFrom('create', 'roll', 'revoke', 'current'),
        role: fc.option(attribute(fc.constantFrom(...ROLE_VALUES)), { nil: undefined }),
        name: fc.option(attribute(fc.string({ unit: 'grapheme', minLength: 0, maxLength: 102 })), { nil: undefined }),
        expiresIn: fc.option(attribute(fc.integer({ min: -5, max: 604_805 })), { nil: undefined }),
        target: idChoice('key'),
        junk: maybeJunk,
      });
      // Keys this property made and may still act on (the suite's own keys are never rolled or revoked).
      const made: { id: string; key: string }[] = [];
      const ROUTES_HIT = ['POST /keys', 'POST /keys/:id/roll', 'DELETE /keys/:id', 'GET /keys/current'];
      await property(t, ROUTES_HIT, RUNS.cheap, arbitrary, async (c) => {
        const ids = made.map((m) => m.id);
        if (c.op === 'create') {
          const attributes: Record<string, unknown> = {};
          if (c.role !== undefined) attributes.role = c.role;
          if (c.name !== undefined) attributes.name = c.name;
          if (typeof c.expiresIn === 'number') attributes.expires_at = new Date(Date.now() + c.expiresIn * 1000).toISOString();
          const r = await call(s(), 'POST', '/keys', { key: key(), body: c.junk ?? { data: { type: 'keys', attributes } } });
          judge(tally, 'POST /keys', r);
          if (r.status === 201) {
            made.push({ id: r.body.data.id, key: r.body.data.attributes.key });
            const { key: _text, ...shown } = r.body.data.attributes;
            await readsBack('GET /keys/current', '/keys/current', { ...r.body.data, attributes: shown }, r.body.data.attributes.key);
          } else assert.ok([400, 422].includes(r.status), r.text);
        } else if (c.op === 'roll') {
          const id = resolveId(c.target, ids);
          const body = c.junk ?? (c.expiresIn === undefined ? undefined : { data: { type: 'keys', attributes: { expires_in: c.expiresIn } } });
          const r = await call(s(), 'POST', `/keys/${pathOf(id)}/roll`, { key: key(), body });
          judge(tally, 'POST /keys/:id/roll', r);
          if (r.status === 201) made.push({ id: r.body.data.id, key: r.body.data.attributes.key });
          else assert.ok([400, 404, 409, 422].includes(r.status), r.text);
          if (r.status === 201 || r.status === 409) assert.ok(ids.includes(id), `${id} is not a key of this world`);
        } else if (c.op === 'revoke') {
          const id = resolveId(c.target, ids);
          const r = await call(s(), 'DELETE', `/keys/${pathOf(id)}`, { key: key() });
          judge(tally, 'DELETE /keys/:id', r);
          assert.equal(r.status, ids.includes(id) ? 204 : 404, r.text);
          if (r.status === 204) assertError(await call(s(), 'GET', '/keys/current', { key: made.find((m) => m.id === id)!.key }), 401);
        } else {
          const own = fromPool(made, 'known' in c.target ? c.target.known : 0);
          const r = await call(s(), 'GET', '/keys/current', { key: own?.key ?? key() });
          judge(tally, 'GET /keys/current', r);
          assert.ok([200, 401].includes(r.status), r.text);
          if (r.status === 200) assert.equal(r.body.data.id, own?.id ?? suite.world.sandbox.id);
        }
      });
    });

    test('users: invite, update and reset with any attributes and ids', async (t) => {
      const attribute = <T>(good: fc.Arbitrary<T>) =>
        fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean()) });
      const arbitrary = fc.record({
        op: fc.constantFrom('invite', 'update', 'reset'),
        email: fc.option(
          attribute(
            fc.oneof(
              fc.emailAddress(),
              fc.string({ maxLength: 12 }).map((local) => `${local}@example.com`),
              fc.string({ maxLength: 260 }),
            ),
          ),
          { nil: undefined },
        ),
        role: fc.option(attribute(fc.constantFrom('admin', 'write', 'read', 'verify')), { nil: undefined }),
        disabled: fc.option(attribute(fc.boolean()), { nil: undefined }),
        target: idChoice('usr'),
        junk: maybeJunk,
      });
      const made: string[] = [];
      const ROUTES_HIT = ['POST /users', 'PATCH /users/:id', 'POST /users/:id/reset'];
      await property(t, ROUTES_HIT, RUNS.cheap, arbitrary, async (c) => {
        if (c.op === 'invite') {
          const attributes: Record<string, unknown> = {};
          if (c.email !== undefined) attributes.email = c.email;
          if (c.role !== undefined) attributes.role = c.role;
          const r = await call(s(), 'POST', '/users', { key: live(), body: c.junk ?? { data: { type: 'users', attributes } } });
          judge(tally, 'POST /users', r);
          if (r.status === 201) made.push(r.body.data.id);
          else assert.ok([400, 409, 422].includes(r.status), r.text);
        } else if (c.op === 'update') {
          const id = resolveId(c.target, made);
          const attributes: Record<string, unknown> = {};
          if (c.role !== undefined) attributes.role = c.role;
          if (c.disabled !== undefined) attributes.disabled = c.disabled;
          const r = await call(s(), 'PATCH', `/users/${pathOf(id)}`, { key: live(), body: c.junk ?? { data: { type: 'users', id, attributes } } });
          judge(tally, 'PATCH /users/:id', r);
          if (r.status === 200) assert.ok(made.includes(id), `${id} is not a user of this team`);
          else assert.ok([400, 404, 422].includes(r.status), r.text);
        } else {
          const id = resolveId(c.target, made);
          // A reset link is answered to a person in the console only: every key is refused, whatever the id.
          const r = await call(s(), 'POST', `/users/${pathOf(id)}/reset`, { key: live() });
          judge(tally, 'POST /users/:id/reset', r);
          // `.` and `..` are path segments the URL resolves away, and a lone surrogate cannot be a URL's
          // character: no user route is named at all.
          assert.equal(r.status, ['.', '..'].includes(id) || !id.isWellFormed() ? 404 : 403, r.text);
        }
      });
    });

    test('the catalog: products, tokens, tag links and holdings with any attributes and ids', async (t) => {
      const products: string[] = [];
      const tokens: string[] = [];
      const odd = fc.oneof(
        fc.string({ maxLength: 3 }),
        fc.integer(),
        fc.constant(null),
        fc.boolean(),
        fc.string({ unit: 'binary', minLength: 199, maxLength: 202 }),
      );
      const value = <T>(good: fc.Arbitrary<T>) => fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: odd });
      const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
      const arbitrary = fc.record({
        op: fc.constantFrom('product', 'token', 'link', 'hold', 'unhold'),
        name: value(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 })),
        supply: value(fc.nat()),
        address: fc.oneof(
          hex(20).map((h) => `0x${h}`),
          fc.constantFrom('0x00000000000000000000000000000000000000aa', 'nowhere', ''),
        ),
        quantity: fc.option(value(fc.integer({ min: 0, max: 3 })), { nil: undefined }),
        product: fc.option(fc.oneof(idChoice('prd'), fc.constant({ id: null as unknown as string })), { nil: undefined }),
        token: idChoice('tok'),
        tag: idChoice('tag'),
        stray,
        junk: maybeJunk,
      });
      const ROUTES_HIT = ['POST /products', 'POST /tokens', 'PATCH /tags/:id/links', 'POST /tokens/:id/holdings', 'DELETE /tokens/:id/holdings/:address'];
      tags.push(...(await freshTags(2)));
      await property(t, ROUTES_HIT, RUNS.cheap, arbitrary, async (c) => {
        if (c.op === 'product') {
          const r = await call(s(), 'POST', '/products', {
            key: key(),
            body: c.junk ?? { data: { type: 'products', attributes: { name: c.name, ...c.stray } } },
          });
          judge(tally, 'POST /products', r);
          if (r.status === 201) products.push(r.body.data.id);
          else assert.ok([400, 422].includes(r.status), r.text);
        } else if (c.op === 'token') {
          const attributes = {
            chain: 'ethereum',
            name: c.name,
            symbol: 'T',
            supply: c.supply,
            contract_address: `0x${'1'.repeat(40)}`,
            standard: 'erc20',
            ...c.stray,
          };
          const r = await call(s(), 'POST', '/tokens', { key: key(), body: c.junk ?? { data: { type: 'tokens', attributes } } });
          judge(tally, 'POST /tokens', r);
          if (r.status === 201) tokens.push(r.body.data.id);
          else assert.ok([400, 422].includes(r.status), r.text);
        } else if (c.op === 'link') {
          const tagId = resolveId(c.tag, tags);
          const attributes = c.product === undefined ? {} : { product_id: 'known' in c.product ? resolveId(c.product, products) : c.product.id };
          const r = await call(s(), 'PATCH', `/tags/${pathOf(tagId)}/links`, { key: key(), body: c.junk ?? { data: { type: 'tag-links', attributes } } });
          judge(tally, 'PATCH /tags/:id/links', r);
          if (r.status === 200) await readsBack('GET /tags/:id/links', `/tags/${tagId}/links`, r.body.data);
        } else {
          const tokenId = resolveId(c.token, tokens);
          if (c.op === 'hold') {
            const attributes = { address: c.address, ...(c.quantity === undefined ? {} : { quantity: c.quantity }) };
            const r = await call(s(), 'POST', `/tokens/${pathOf(tokenId)}/holdings`, {
              key: key(),
              body: c.junk ?? { data: { type: 'holdings', attributes } },
            });
            judge(tally, 'POST /tokens/:id/holdings', r);
            if (r.status === 200 || r.status === 201) assert.ok(tokens.includes(tokenId), r.text);
          } else {
            const r = await call(s(), 'DELETE', `/tokens/${pathOf(tokenId)}/holdings/${pathOf(c.address)}`, { key: key() });
            judge(tally, 'DELETE /tokens/:id/holdings/:address', r);
            assert.ok([204, 404].includes(r.status), r.text);
          }
        }
      });
    });

    test('every route of the route table was exercised', () => {
      assert.deepEqual([...tally.keys()].sort(), ROUTES.map((r) => `${r.method} ${r.pattern}`).sort());
    });
  });
}
