// GET /metrics: Prometheus text with exact counters after real traffic (route
// patterns, verdict reasons, 429s, the delivery backlog), and the bearer token.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, call, sharedServer, type TestServer } from '../kit/harness.js';
import { createDocument } from '../tags/helpers.js';
import { parseMetrics } from './exposition.js';
import { emulated, flipHexDigit, tapUrl, verify } from '../verifications/helpers.js';

const LIMIT = 6;
const TOKEN = 'metrics-token-for-tests';

const parse = parseMetrics;

async function scrape(server: TestServer, authorization?: string): Promise<Response> {
  return fetch(server.origin + '/metrics', { headers: authorization === undefined ? {} : { authorization } });
}

for (const kind of DATABASES) {
  describe(`metrics (${kind})`, () => {
    const suite = sharedServer(kind, { TAPPROOF_RATE_LIMIT: String(LIMIT), TAPPROOF_METRICS_TOKEN: TOKEN });

    test('without the configured token → 401; with a wrong one → 401', async () => {
      const none = await scrape(suite.server);
      assert.equal(none.status, 401);
      assert.equal(await none.text(), 'metrics token required\n');
      assert.equal(none.headers.get('www-authenticate'), 'Bearer');
      assert.equal((await scrape(suite.server, `Bearer ${TOKEN}x`)).status, 401);
      assert.equal((await scrape(suite.server, TOKEN)).status, 401);
    });

    test('a create, two scans, a 404 and a 429 → exact counters by route pattern, reason and status', async () => {
      const { server, world } = suite;
      const key = world.sandbox.key;
      const created = await call(server, 'POST', '/tags', { key, body: createDocument(1) });
      assert.equal(created.status, 201, created.text);
      const tag = await emulated(server, world.teamId, 'ntag_424_dna');
      const url = await tapUrl(server, tag.id);
      const first = await verify(server, key, url);
      assert.equal(first.body.data.attributes.reason, 'ok');
      // A reload answers the first verification: not a new one, not counted.
      const again = await verify(server, key, url);
      assert.equal(again.body.data.id, first.body.data.id);
      const forged = await verify(server, key, flipHexDigit(url));
      assert.equal(forged.status, 201, forged.text);
      const forgedReason = forged.body.data.attributes.reason;
      // The last digit of the URL is the CMAC's.
      assert.equal(forgedReason, 'bad_cmac');
      const id = created.body.data[0].id;
      assert.equal((await call(server, 'GET', `/tags/${id}`, { key })).status, 200);
      assert.equal((await call(server, 'GET', '/nowhere', { key })).status, 404);
      // That was the 6th request of the minute, the last allowed; the 7th is refused.
      assert.equal((await call(server, 'GET', `/tags/${id}`, { key })).status, 429);

      // /metrics is not rate limited: scraped twice past the limit.
      assert.equal((await scrape(server, `Bearer ${TOKEN}`)).status, 200);
      const response = await scrape(server, `Bearer ${TOKEN}`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
      const m = parse(await response.text());
      const http = (method: string, route: string, status: number) =>
        m.get(`tapproof_http_requests_total{method="${method}",route="${route}",status="${status}"}`);
      assert.equal(http('POST', '/api/v1/tags', 201), 1);
      assert.equal(http('POST', '/api/v1/verifications', 201), 3);
      // The route pattern, never the raw URL with its id.
      assert.equal(http('GET', '/api/v1/tags/:id', 200), 1);
      assert.equal(http('GET', '/api/v1/tags/:id', 429), 1);
      assert.equal(http('GET', 'unmatched', 404), 1);
      // The three 401s of the first test and the first scrape of this one.
      assert.equal(http('GET', '/metrics', 401), 3);
      assert.equal(http('GET', '/metrics', 200), 1);
      assert.ok(![...m.keys()].some((k) => k.includes(id)), 'no raw ids in labels');
      assert.equal(m.get('tapproof_http_request_duration_seconds_count{method="GET",route="/api/v1/tags/:id"}'), 2);
      assert.equal(m.get('tapproof_verifications_total{reason="ok"}'), 1);
      assert.equal(m.get(`tapproof_verifications_total{reason="${forgedReason}"}`), 1);
      assert.equal([...m.keys()].filter((k) => k.startsWith('tapproof_verifications_total')).length, 2);
      assert.equal(m.get('tapproof_rate_limited_total'), 1);
      assert.equal(m.get('tapproof_webhook_deliveries_pending'), 0);
      // Three scans one after the other: three group commits of one scan each (the reload too, it is decided there).
      assert.equal(m.get('tapproof_scan_batch_size_count'), 3);
      assert.equal(m.get('tapproof_scan_batch_size_sum'), 3);
      assert.equal(m.get('tapproof_scan_batch_size_bucket{le="1"}'), 3);
      assert.equal(m.get('tapproof_scan_commit_duration_seconds_count'), 3);
      assert.ok(m.get('tapproof_scan_commit_duration_seconds_sum')! > 0);
    });

    test('the backlog gauge counts pending deliveries only, read on scrape', async () => {
      const { server } = suite;
      const db = server.ctx.db.kysely;
      const before = parse(await (await scrape(server, `Bearer ${TOKEN}`)).text());
      assert.equal(before.get('tapproof_webhook_deliveries_pending'), 0);
      const count = await db
        .selectFrom('deliveries')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 0);
    });
  });
}

for (const kind of DATABASES) {
  describe(`metrics of the group commit (${kind})`, () => {
    const suite = sharedServer(kind);

    test('concurrent scans of distinct chips → batch sizes add up to the scans, one latency per batch', async () => {
      const { server, world } = suite;
      const key = world.sandbox.key;
      const SCANS = 12;
      const tags = await Promise.all(Array.from({ length: SCANS }, () => emulated(server, world.teamId, 'ntag_424_dna')));
      const urls = await Promise.all(tags.map((t) => tapUrl(server, t.id)));
      const before = parse(await (await scrape(server)).text());
      const answers = await Promise.all(urls.map((url) => verify(server, key, url)));
      assert.deepEqual(
        answers.map((a) => a.body.data.attributes.reason),
        urls.map(() => 'ok'),
      );
      const after = parse(await (await scrape(server)).text());
      const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
      assert.equal(delta('tapproof_scan_batch_size_sum'), SCANS);
      const batches = delta('tapproof_scan_batch_size_count');
      assert.ok(batches >= 1 && batches <= SCANS, `${batches} batches`);
      assert.equal(delta('tapproof_scan_batch_size_bucket{le="+Inf"}'), batches);
      assert.equal(delta('tapproof_scan_commit_duration_seconds_count'), batches);
      // The SQLite file's commit thread reports each batch's wait for its WAL fsync; PostgreSQL's commit includes its own.
      assert.equal(delta('tapproof_scan_fsync_wait_seconds_count'), kind === 'sqlite' ? batches : 0);
      assert.equal(delta('tapproof_scan_fsync_wait_seconds_bucket{le="+Inf"}'), kind === 'sqlite' ? batches : 0);
      assert.equal(delta('tapproof_verifications_total{reason="ok"}'), SCANS);
      // PostgreSQL: chips this server has not committed before are locked, never written on a guess.
      assert.equal(delta('tapproof_scan_batches_total{path="locked"}'), kind === 'postgres' ? batches : 0);
      assert.equal(delta('tapproof_scan_batches_total{path="as_seen"}'), 0);
    });
  });
}

describe('metrics without a token', () => {
  const suite = sharedServer(DATABASES[0]);
  test('GET /metrics is open when TAPPROOF_METRICS_TOKEN is unset', async () => {
    const response = await scrape(suite.server);
    assert.equal(response.status, 200);
    const m = parse(await response.text());
    assert.equal(m.get('tapproof_rate_limited_total'), 0);
  });
});
