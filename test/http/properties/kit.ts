// What every property group shares (test/http/properties.test.ts runs them): the arbitraries built from the
// attribute rules, the judge every answer meets, and a suite per database (the server, its pools of ids, the
// tally of answers per route and status).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import fc from 'fast-check';
import { PROTOCOLS } from '../../../src/tags/rules.js';
import { JSON_API, call, sharedServer, type ApiResponse, type DatabaseKind, type SeededTeam } from '../../kit/harness.js';
import { assertError } from '../../kit/assertions.js';

/** Cases per database and property; twice that over both. PROPERTY_SCALE=0.1 for a quick look. */
export const SCALE = Number(process.env.PROPERTY_SCALE ?? 1);
export const RUNS = { write: Math.ceil(350 * SCALE), read: Math.ceil(350 * SCALE), cheap: Math.ceil(350 * SCALE), ids: Math.ceil(1050 * SCALE) };
// A fixed seed per database keeps CI reproducible; PROPERTY_SEED explores others.
export const SEED = Number(process.env.PROPERTY_SEED ?? 12);

export const run = randomBytes(3).toString('hex');
let serial = 0;
export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// ---- arbitraries, from the rules (src/tags/rules.ts, src/webhooks/service.ts, src/writer/documents.ts) ----

/** A string of the id shape: prefix + 22 base62 (most such ids exist nowhere). */
export const shapedId = (prefix: string) => fc.string({ unit: fc.constantFrom(...BASE62), minLength: 22, maxLength: 22 }).map((s) => `${prefix}_${s}`);
/** Not ids: other prefixes and lengths, NUL, slashes, unicode, very long. */
export const junkId = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
  fc.constantFrom('x', 'tag_', 'tag_\u0000', '..', '%2F', 'ses_0000000000000000000000X', 'wrt_' + 'A'.repeat(2000), '\ud800', 'null', '0'),
);

/** The choice between reusing a known value and a fresh one, made at run time (pools grow as cases run). */
export const pick = fc.nat({ max: 1_000_000 });
export const fromPool = <T>(pool: T[], index: number): T | undefined => (pool.length === 0 ? undefined : pool[index % pool.length]);
export const forget = <T>(pool: T[], value: T) => void (pool.includes(value) && pool.splice(pool.indexOf(value), 1));

/** A url as the case will send it: `fresh` ones get a unique prefix when the case runs. */
export type UrlChoice = { fresh: string } | { exact: unknown } | { bytes: number } | { reuse: number };
export const pathText = fc.string({ unit: fc.constantFrom(...'abcxyzABC0189-._~/?=&%', 'é', 'ü', '€', '😀'), maxLength: 40 });
export const urlChoice: fc.Arbitrary<UrlChoice> = fc.oneof(
  { weight: 24, arbitrary: pathText.map((fresh) => ({ fresh })) },
  { weight: 1, arbitrary: fc.integer({ min: 2040, max: 2056 }).map((bytes) => ({ bytes })) }, // around the 2048-byte limit
  { weight: 1, arbitrary: pick.map((reuse) => ({ reuse })) }, // a url already taken
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map((exact) => ({ exact })) }, // control characters, empty
  { weight: 1, arbitrary: fc.constantFrom('https://brand.example/a\ud800', 'https://brand.example/\udc00b', 'a\tb', 'x\u0000').map((exact) => ({ exact })) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 })).map((exact) => ({ exact })) },
);
export function resolveUrl(choice: UrlChoice, used: string[], host = 'brand.example'): unknown {
  if ('fresh' in choice) return `https://${host}/${run}/${++serial}/${choice.fresh}`;
  if ('bytes' in choice) {
    const head = `https://${host}/${run}/${++serial}/`;
    return head + 'p'.repeat(choice.bytes - head.length);
  }
  if ('reuse' in choice) return fromPool(used, choice.reuse) ?? `https://${host}/${run}/${++serial}`;
  return choice.exact;
}

export const comment = fc.oneof(
  { weight: 10, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 40, maxLength: 60 }) }, // about the 50-character limit; controls
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.boolean(), fc.dictionary(fc.string(), fc.string(), { maxKeys: 1 })) },
);
export const sessionDuration = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 1, max: 3600 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 3601, 1.5, '600', null, 2 ** 53) },
);
export const protocol = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...PROTOCOLS) },
  { weight: 1, arbitrary: fc.constantFrom('ntag_215', '', 'NTAG_424_DNA', 7) },
);
/** `arbitrary` in one case of `oneIn`, else undefined (fc.option's freq is the other way round: nil once in freq). */
export const rarely = <T>(arbitrary: fc.Arbitrary<T>, oneIn: number) =>
  fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
/** Now and then an attribute the operation does not take (read-only or unknown). */
export const stray = rarely(
  fc.constantFrom({ status: 'configured' }, { id: 'tag_0000000000000000000000' }, { colour: 'red' }, { inserted_at: '2020-01-01T00:00:00.000000Z' }),
  12,
);

// Nine entries in ten follow every rule; the tenth mixes rule-breaking values in (a batch of up to three
// entries is then still valid about three times in four).
export const validEntry = fc.record({
  protocol: fc.constantFrom(...PROTOCOLS),
  url: pathText.map((fresh): UrlChoice => ({ fresh })),
  comment: fc.option(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.constant(null)), { freq: 2, nil: undefined }),
  session_duration: fc.option(fc.integer({ min: 1, max: 3600 }), { freq: 2, nil: undefined }),
  stray: fc.constant(undefined),
});
export const mixedEntry = fc.record({
  protocol: fc.option(protocol, { freq: 25, nil: undefined }),
  url: fc.option(urlChoice, { freq: 25, nil: undefined }),
  comment: fc.option(comment, { freq: 2, nil: undefined }),
  session_duration: fc.option(sessionDuration, { freq: 2, nil: undefined }),
  stray,
});
export const tagEntry = fc.oneof({ weight: 9, arbitrary: validEntry }, { weight: 1, arbitrary: mixedEntry });
export type TagEntry = typeof mixedEntry extends fc.Arbitrary<infer T> ? T : never;
export function tagAttributes(
  e: TagEntry,
  usedUrls: string[],
  keys: readonly string[] = ['protocol', 'url', 'comment', 'session_duration'],
): Record<string, unknown> {
  const a: Record<string, unknown> = { ...e.stray };
  if (keys.includes('protocol') && e.protocol !== undefined) a.protocol = e.protocol;
  if (keys.includes('url') && e.url !== undefined) a.url = resolveUrl(e.url, usedUrls);
  if (keys.includes('comment') && e.comment !== undefined) a.comment = e.comment;
  if (keys.includes('session_duration') && e.session_duration !== undefined) a.session_duration = e.session_duration;
  return a;
}

/** Bodies that are not a usable document: broken JSON, other JSON, wrong shapes. */
export const junkBody = fc.oneof(
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
export const maybeJunk = rarely(junkBody, 12);

// ---- judging every answer ----

export type Tally = Map<string, Map<number, number>>;
export function judge(tally: Tally, route: string, r: ApiResponse): void {
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
  const explained = (route === 'POST /keys/:id/roll' && r.status === 409) || r.status === 403 || (route === 'POST /verifications' && r.status === 404);
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

/** One database's suite: the server and its team, the pools the groups grow, and their helpers. */
export function propertySuite(kind: DatabaseKind, dbIndex: number) {
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
  const resolveId = (choice: { known: number } | { id: string }, pool: string[]) => ('known' in choice ? (fromPool(pool, choice.known) ?? 'none') : choice.id);
  // A lone surrogate cannot be percent-encoded as UTF-8: sent as the bytes SQLite would have stored for it.
  const pathOf = (id: string) => [...id].map((ch) => (/^[\ud800-\udfff]$/.test(ch) ? '%ED%A0%80' : encodeURIComponent(ch))).join('');
  return { kind, suite, tally, tags, urls, s, key, live, property, freshTags, readsBack, idChoice, resolveId, pathOf };
}

export type PropertySuite = ReturnType<typeof propertySuite>;
