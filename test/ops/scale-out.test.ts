// The scale-out layout of docs/operations.md ("Scale-out: several servers, one worker, …"):
// two real `tapproof serve` processes and one `tapproof worker` on one PostgreSQL
// schema and one Redis, started together on an empty database, as a load
// balancer would see them. Every client request carries its own X-Forwarded-For
// address (the servers trust the loopback balancer), so that only the
// rate-limit test shares a budget.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { createEmulatedChip, tap } from '../../src/emulator/service.js';
import { createKey } from '../../src/keys/service.js';
import { createTeam } from '../../src/teams/service.js';
import { REPO, runCli, startServe, startWorker, type LongRunning, type ServeProcess } from '../cli/process.js';
import { REDIS_URL, call, freshStorage, randomIp, type ApiResponse, type Storage } from '../kit/harness.js';
import { parseMetrics } from '../metrics/exposition.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { cliActor } from '../../src/audit/record.js';

const LIMIT = 5;
const CHIPS = 4;
const ROUNDS = 3;
const METRICS_TOKEN = 'scale-out-metrics';

async function scrape(url: string): Promise<Map<string, number>> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.equal(response.status, 200);
  return parseMetrics(await response.text());
}

/**
 * The variables of the scale-out recipe in docs/operations.md (the first shell block under
 * "## Scale-out"): the assignments every process shares, and those of the `serve` and `worker` lines.
 */
function documentedRecipe(): { shared: string[]; serve: string[]; worker: string[] } {
  const doc = readFileSync(join(REPO, 'docs/operations.md'), 'utf8');
  const block = /## Scale-out[\s\S]*?```sh\n([\s\S]*?)```/.exec(doc)![1]!;
  const names = (line: string) => [...line.replace(/#.*/, '').matchAll(/\b([A-Z][A-Z0-9_]*)=/g)].map((m) => m[1]!);
  const lines = block.split('\n').map((l) => l.replace(/#.*/, '').trim());
  const isCommand = (l: string) => / (serve|worker)\b/.test(l);
  return {
    shared: lines.filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l) && !isCommand(l)).flatMap(names),
    serve: lines.filter((l) => / serve\b/.test(l)).flatMap(names),
    worker: lines.filter((l) => / worker\b/.test(l)).flatMap(names),
  };
}

describe('scale-out: two serve processes and one worker on one PostgreSQL and one Redis', () => {
  let storage: Storage;
  let env: Record<string, string>;
  let dir: string | undefined;
  let a: ServeProcess;
  let b: ServeProcess;
  let worker: LongRunning;
  let receiver: Receiver;
  let ctx: AppContext;
  let teamId: string;
  let key: { id: string; key: string };

  /** A request from its own client address through the balancer to `server`. */
  const send = (server: ServeProcess, method: string, path: string, options: { key?: string; body?: unknown; ip?: string } = {}): Promise<ApiResponse> =>
    call(server, method, path, { key: options.key ?? key.key, body: options.body, headers: { 'x-forwarded-for': options.ip ?? randomIp() } });

  before(async () => {
    storage = await freshStorage('postgres');
    receiver = await startReceiver();
    // Each process gets exactly the documented recipe's variables, with this machine's values
    // (a recipe variable the test has no value for fails here), plus the test-only ones.
    dir = mkdtempSync(join(tmpdir(), 'tapproof-scale-'));
    const keyFile = join(dir, 'master.key');
    writeFileSync(keyFile, storage.env.TAPPROOF_MASTER_KEY! + '\n');
    const values: Record<string, string> = {
      DATABASE_URL: storage.env.DATABASE_URL!,
      REDIS_URL,
      TAPPROOF_MASTER_KEY_FILE: keyFile,
      TAPPROOF_TRUST_PROXY: '127.0.0.1',
      TAPPROOF_RATE_LIMIT: String(LIMIT),
      TAPPROOF_METRICS_TOKEN: METRICS_TOKEN,
      TAPPROOF_EMBEDDED_WORKER: '0',
      PORT: '0',
      TAPPROOF_WORKER_METRICS_PORT: '0',
    };
    const pick = (names: string[]) =>
      Object.fromEntries(names.map((n) => [n, values[n] ?? assert.fail(`recipe variable ${n} of docs/operations.md has no value in this test`)]));
    const recipe = documentedRecipe();
    assert.deepEqual(recipe.serve, ['TAPPROOF_EMBEDDED_WORKER', 'PORT']);
    env = {
      ...pick(recipe.shared),
      TAPPROOF_DATA_DIR: dir,
      // Test only: the webhook receiver is http on loopback.
      TAPPROOF_ALLOW_PRIVATE_WEBHOOKS: '1',
      TAPPROOF_ALLOW_HTTP_WEBHOOKS: '1',
      LOG_LEVEL: 'info',
    };
    // All three at once on the empty schema: one migrates (the others wait on the lock), one bootstraps.
    [a, b, worker] = await Promise.all([
      startServe({ ...env, ...pick(recipe.serve) }),
      startServe({ ...env, ...pick(recipe.serve) }),
      startWorker({ ...env, ...pick(recipe.worker) }),
    ]);
    ctx = createContext(storage.open(), loadConfig(env));
    teamId = (await createTeam(ctx.db.kysely, 'scale-out', null, ctx.clock)).id;
    key = await createKey(ctx.db.kysely, teamId, 'sandbox', ctx.clock);
    const hook = await send(a, 'POST', '/webhooks', { body: { data: { type: 'webhooks', attributes: { url: receiver.url('/events') } } } });
    assert.equal(hook.status, 201, hook.text);
  });

  after(async () => {
    await Promise.all([a, b, worker].filter(Boolean).map((p) => p.stop()));
    await receiver?.close();
    await ctx?.db.close();
    await storage?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('concurrent taps over both servers, each URL sent to both → exactly one genuine verification per fresh counter', async () => {
    assert.notEqual(a.origin, b.origin);
    const tags = await Promise.all(
      Array.from({ length: CHIPS }, (_, i) =>
        createEmulatedChip(ctx, { teamId, url: `https://example.com/scale/${i}`, protocol: 'ntag_424_dna', actor: cliActor() }),
      ),
    );
    const ids = new Set<string>();
    for (let round = 1; round <= ROUNDS; round++) {
      const urls = await Promise.all(tags.map(async (t) => (await tap(ctx, t.id)).url));
      // Each scan URL twice to each server, all at once.
      const sends = urls.flatMap((url) => [a, b, a, b].map((server) => ({ url, server })));
      const answers = await Promise.all(
        sends.map(({ url, server }) => send(server, 'POST', '/verifications', { body: { data: { type: 'verifications', attributes: { url } } } })),
      );
      for (const [i, url] of urls.entries()) {
        const mine = answers.slice(i * 4, i * 4 + 4);
        assert.deepEqual(
          mine.map((r) => r.status),
          [201, 201, 201, 201],
          mine.map((r) => r.text).join('\n'),
        );
        // The three duplicates answer the one verification the fresh counter made, whichever server decided it.
        const vid = mine[0]!.body.data.id;
        for (const r of mine) {
          assert.equal(r.body.data.id, vid, url);
          assert.equal(r.body.data.attributes.genuine, true);
          assert.equal(r.body.data.attributes.reason, 'ok');
        }
        ids.add(vid);
      }
    }
    assert.equal(ids.size, CHIPS * ROUNDS);
    const rows = await ctx.db.kysely.selectFrom('verifications').select(['id', 'genuine', 'reason']).where('team_id', '=', teamId).execute();
    assert.equal(rows.length, CHIPS * ROUNDS);
    assert.deepEqual(new Set(rows.map((r) => r.id)), ids);
    assert.equal(rows.filter((r) => Number(r.genuine) === 1 && r.reason === 'ok').length, CHIPS * ROUNDS);
    for (const t of tags) {
      const chip = await ctx.db.kysely.selectFrom('chips').select('last_counter').where('tag_id', '=', t.id).executeTakeFirstOrThrow();
      assert.equal(Number(chip.last_counter), ROUNDS);
    }
  });

  test(`the rate limit is shared: ${LIMIT + 1} requests of one client split over both servers → exactly one 429, plain text`, async () => {
    for (const server of [a, b]) assert.deepEqual((await call({ base: server.origin }, 'GET', '/readyz')).body, { status: 'ok', database: 'ok', redis: 'ok' });
    const ip = randomIp();
    // Neither server sees more than LIMIT / 2 + 1 of them: alone, neither would refuse any.
    const answers = await Promise.all(Array.from({ length: LIMIT + 1 }, (_, i) => send(i % 2 === 0 ? a : b, 'GET', `/keys/${key.id}`, { ip })));
    const refused = answers.filter((r) => r.status === 429);
    assert.equal(refused.length, 1, answers.map((r) => r.status).join(' '));
    assert.equal(answers.filter((r) => r.status === 200).length, LIMIT);
    assert.match(refused[0]!.headers.get('content-type')!, /^text\/plain/);
    assert.equal(refused[0]!.text, 'Too Many Requests');
    // Still refused on both, while another client is served by both.
    for (const server of [a, b]) {
      assert.equal((await send(server, 'GET', `/keys/${key.id}`, { ip })).status, 429);
      assert.equal((await send(server, 'GET', `/keys/${key.id}`)).status, 200);
    }
  });

  test('each event, whichever server recorded it, is delivered exactly once by the worker', async () => {
    const created = await Promise.all(
      [a, b].map((server, s) =>
        send(server, 'POST', '/tags', {
          body: {
            data: Array.from({ length: 10 }, (_, i) => ({ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: `https://example.com/made/${s}/${i}` } })),
          },
        }),
      ),
    );
    for (const r of created) assert.equal(r.status, 201, r.text);
    // Deleted through the other server than the one that created them.
    const deleted = await Promise.all([send(b, 'DELETE', `/tags/${created[0]!.body.data[0].id}`), send(a, 'DELETE', `/tags/${created[1]!.body.data[0].id}`)]);
    for (const r of deleted) assert.equal(r.status, 204, r.text);

    const events = await ctx.db.kysely.selectFrom('events').select(['id', 'type']).where('team_id', '=', teamId).execute();
    const count = (type: string) => events.filter((e) => e.type === type).length;
    // The emulated chips' creation and configuration, the API's 20 tags and 2 deletes.
    assert.deepEqual([count('tag.created'), count('tag.configured'), count('tag.deleted')], [CHIPS + 20, CHIPS, 2]);
    const expected = new Set(events.map((e) => e.id));
    await receiver.until((received) => new Set(received.map((r) => r.headers['webhook-id'])).size >= expected.size);
    // Every delivery recorded as delivered: nothing is left to be sent again.
    for (;;) {
      const open = await ctx.db.kysely.selectFrom('deliveries').select('id').where('status', '!=', 'delivered').execute();
      if (open.length === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const received = receiver.on('/events').map((r) => String(r.headers['webhook-id']));
    assert.equal(received.length, expected.size);
    assert.deepEqual(new Set(received), expected);
    const attempts = await ctx.db.kysely.selectFrom('delivery_attempts').select('id').execute();
    assert.equal(attempts.length, expected.size);
  });

  test('a key revoked while both servers hold it is refused (401) by both on the next request', async () => {
    const doomed = await createKey(ctx.db.kysely, teamId, 'sandbox', ctx.clock);
    // Both authenticate it, so both have it cached.
    for (const server of [a, b]) assert.equal((await send(server, 'GET', `/keys/${doomed.id}`, { key: doomed.key })).status, 200);
    // The operator's revoke (the API has none): a third process on the database, whose commit NOTIFYs every server.
    const revoked = await runCli(env, 'keys', 'revoke', doomed.id, '--json');
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(JSON.parse(revoked.stdout).id, doomed.id);
    for (const server of [b, a]) {
      const refused = await send(server, 'GET', `/keys/${doomed.id}`, { key: doomed.key });
      assert.equal(refused.status, 401, refused.text);
    }
    // The other key of the team is unaffected.
    assert.equal((await send(b, 'GET', `/keys/${key.id}`)).status, 200);
  });

  test("each process counts its own share: the servers' and the worker's metrics add up to what was done", async () => {
    const ready = JSON.parse(
      worker
        .stdout()
        .split('\n')
        .find((l) => l.includes('tapproof worker ready'))!,
    );
    const [ma, mb, mw] = await Promise.all([scrape(a.origin + '/metrics'), scrape(b.origin + '/metrics'), scrape(ready.metrics)]);
    const both = (name: string) => (ma.get(name) ?? 0) + (mb.get(name) ?? 0);
    assert.equal(both('tapproof_verifications_total{reason="ok"}'), CHIPS * ROUNDS);
    // Every POST /verifications went through one server's group commit, duplicates included.
    assert.equal(both('tapproof_scan_batch_size_sum'), CHIPS * ROUNDS * 4);
    assert.equal(both('tapproof_scan_commit_duration_seconds_count'), both('tapproof_scan_batch_size_count'));
    assert.equal(both('tapproof_http_requests_total{method="POST",route="/api/v1/verifications",status="201"}'), CHIPS * ROUNDS * 4);
    // The shared-limit test's one refusal and the two that followed it.
    assert.equal(both('tapproof_rate_limited_total'), 3);
    // Only the worker delivers (the servers run with TAPPROOF_EMBEDDED_WORKER=0): one successful attempt per event.
    const events = await ctx.db.kysely.selectFrom('events').select('id').where('team_id', '=', teamId).execute();
    assert.equal(mw.get('tapproof_webhook_delivery_attempts_total{outcome="ok"}'), events.length);
    assert.equal(mw.get('tapproof_webhook_delivery_attempts_total{outcome="failed"}'), undefined);
    assert.equal(both('tapproof_webhook_delivery_attempts_total{outcome="ok"}'), 0);
    for (const m of [ma, mb, mw]) assert.equal(m.get('tapproof_webhook_deliveries_pending'), 0);
  });
});
