// The SQL of every statement the platform issues is committed (sql/sqlite.sql, sql/postgres.sql), so a
// change to a query shows up in review as a change to its SQL (as immich does with its queries/*.sql).
// The statements are recorded while a real server on each database runs the platform's flows below;
// a statement text that differs from the committed file fails the test. Regenerate with
// `npm run sql:snapshot` (UPDATE_SQL_SNAPSHOT=1) and commit the result.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { PostgresQueryCompiler, SqliteQueryCompiler } from 'kysely';
import { bootstrapIfEmpty } from '../../src/bootstrap.js';
import { verifyMasterKeys } from '../../src/master-keys/masters.js';
import { checkTagCounters } from '../../src/tags/doctor.js';
import { findWebhookById, listAttempts, requeue } from '../../src/webhooks/repository.js';
import { setHolding, unsetHolding } from '../../src/extension/holdings/repository.js';
import { DeliveryWorker } from '../../src/webhooks/worker.js';
import { createKey, revoke } from '../../src/keys/service.js';
import { DATABASES, call, startServer, type TestServer } from '../kit/harness.js';
import { ROUTES, ownerKey, seedOwned } from '../http/routes.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { FUNGIBLE_TOKEN, catalog, ext, genuineScan, replayedScan } from '../extension/helpers.js';
import { startReceiver } from '../webhooks/receiver.js';
import { createdTag, newCard, writeTag } from '../writer/helpers.js';
import { emulated, tamper, tapUrl, verify } from '../verifications/helpers.js';
import { sqlRecorder, snapshotText } from './sql-recorder.js';
import { cliActor } from '../../src/audit/record.js';
import { authCall, invited, redeemed, signedIn } from '../users/helpers.js';

const SQL_DIR = join(import.meta.dirname, '../../sql');
const UPDATE = process.env.UPDATE_SQL_SNAPSHOT === '1';

const ENV = {
  // The group commit runs on the recorded connection, not on a commit thread of its own.
  TAPPROOF_SCAN_WRITER_THREAD: '0',
  TAPPROOF_ALLOW_PRIVATE_WEBHOOKS: '1',
  TAPPROOF_ALLOW_HTTP_WEBHOOKS: '1',
  // The first attempt fails (below), the retry comes a few milliseconds later.
  TAPPROOF_WEBHOOK_RETRY_SCALE: '0.001',
};

const ok = (r: { status: number; text: string }, status: number, what: string) => assert.equal(r.status, status, `${what}: ${r.text}`);

/** The platform's flows, each once: API routes, scans and sessions, the extension, writes, webhook delivery, operator commands. */
async function drive(server: TestServer): Promise<void> {
  const world = await server.seedTeam();
  const key = world.sandbox.key;
  const receiver = await startReceiver();
  try {
    ok(await call(server, 'POST', '/webhooks', { key, body: { data: { type: 'webhooks', attributes: { url: receiver.url('/snapshot') } } } }), 201, 'webhook');
    const owned = await seedOwned(server, world);
    // Every authenticated route once, as its owner would call it; deletions last.
    // A route no key may call (a reset) is called by the signed-in person below.
    for (const route of [...ROUTES.filter((r) => r.method !== 'DELETE'), ...ROUTES.filter((r) => r.method === 'DELETE')]) {
      const routeKey = ownerKey(route, world);
      if (routeKey === null) continue;
      const { path, body } = route.request(owned);
      const r = await call(server, route.method, path, { key: routeKey, body });
      assert.ok(r.status < 500, `${route.method} ${route.pattern}: ${r.status} ${r.text}`);
    }
    // A person: the invite's link sets a password and signs in; a failed sign-in, the session read, used on the
    // API, switched to production, a passkey ceremony begun, signed out.
    const ana = await invited(server, world.teamId, 'snapshot@example.com');
    await redeemed(server, ana.token);
    ok(await authCall(server, 'POST', '/auth/sign-in', { body: { email: 'snapshot@example.com', password: 'not the password' } }), 401, 'failed sign-in');
    const person = await signedIn(server, 'snapshot@example.com');
    ok(await authCall(server, 'GET', '/auth/session', { as: person }), 200, 'session');
    ok(await authCall(server, 'GET', '/tags', { as: person, api: true }), 200, 'tags as a person');
    ok(await authCall(server, 'POST', '/auth/mode', { as: person, body: { mode: 'production' } }), 200, 'mode');
    ok(await authCall(server, 'POST', `/users/${owned.userId}/reset`, { as: person, api: true }), 200, 'reset by a person');
    ok(await authCall(server, 'POST', '/auth/passkeys/sign-in/options', { body: {} }), 200, 'passkey options');
    ok(await authCall(server, 'POST', '/auth/sign-out', { as: person, body: {} }), 204, 'sign-out');
    ok(await call(server, 'GET', '/tags?q=x&order_by[]=comment&order_directions[]=desc&page=2&page_size=5', { key }), 200, 'search');
    ok(await call(server, 'GET', '/tags?order_by[]=configured_at', { key }), 200, 'list');
    // A write from start to configured tag, then scans: a session opened and completed, a reload, a replay.
    const written = await createdTag(server, key);
    await writeTag(server, key, written.id, newCard());
    const tagged = (await call(server, 'GET', `/tags/${written.id}`, { key })).body.data;
    assert.equal(tagged.attributes.status, 'configured');
    // The tag in hand found by its chip's UID and a url prefix, then by its exact url.
    const { uid } = (await call(server, 'GET', `/tags/${written.id}/chip`, { key })).body.data.attributes;
    ok(await call(server, 'GET', `/tags?uid=${uid.toLowerCase()}&url=${encodeURIComponent(written.url.slice(0, 12))}*`, { key }), 200, 'find by chip');
    ok(await call(server, 'GET', `/tags?url=${encodeURIComponent(written.url)}&status=configured`, { key }), 200, 'find by url');
    const chip = await emulated(server, world.teamId, 'ntag_424_dna');
    const older = await tapUrl(server, chip.id);
    const opening = await tapUrl(server, chip.id);
    for (const url of [opening, await tapUrl(server, chip.id), opening, older]) ok(await verify(server, key, url), 201, 'scan');
    // The list's other walks (docs/read-api.md): one reason, the refused reasons merged, a tag's; each a page on.
    for (const query of ['reason=ok', 'genuine=false', `tag_id=${chip.id}&genuine=true`]) {
      const first = await call(server, 'GET', `/verifications?page_size=1&${query}`, { key });
      ok(first, 200, query);
      ok(await call(server, 'GET', first.body.links.next.replace(server.ctx.config.apiPrefix, ''), { key }), 200, `${query}, next page`);
    }
    await tamper(server, (await emulated(server, world.teamId, 'ntag_424_dna_tag_tamper')).id, 'open');
    // The extension: catalog, a genuine and a replayed verification, claims, a challenge.
    const links = await catalog(server, world, 'production');
    const genuine = await genuineScan(server, world, 'production', links);
    await replayedScan(server, world, 'production');
    ok(await ext(server, 'GET', `/verifications/${genuine.publicId}`), 200, 'ext verification');
    ok(
      await ext(server, 'POST', '/claims', { body: { resource_url: 'https://brand.example/item/7', verification_id: genuine.publicId, note: 'mine' } }),
      201,
      'claim',
    );
    ok(await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent('https://brand.example/item/7')}`), 200, 'claims');
    ok(await ext(server, 'POST', `/verifications/${genuine.publicId}/challenge`, { body: {} }), 200, 'challenge');
    // Proofs: a first owner, then a resale to another holder (docs/extension.md, Ownership).
    const coin = await catalog(server, world, 'production', FUNGIBLE_TOKEN);
    const item = await genuineScan(server, world, 'production', coin);
    for (const owner of [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())]) {
      await setHolding(server.ctx.db.kysely, coin.token, owner.address, 1n, server.ctx.clock);
      const c = (await ext(server, 'POST', `/verifications/${item.publicId}/challenge`)).body;
      const proof = { session_id: c.session_id, address: owner.address, signature: await owner.signMessage({ message: c.message }) };
      ok(await ext(server, 'POST', `/verifications/${item.publicId}/proof`, { body: proof }), 200, 'proof');
      await unsetHolding(server.ctx.db.kysely, coin.token, owner.address);
    }
    await setHolding(server.ctx.db.kysely, links.token, 'addr_test1snapshot', 1n, server.ctx.clock);
    await unsetHolding(server.ctx.db.kysely, links.token, 'addr_test1snapshot');
    // Operations: probes and metrics.
    ok(await call({ base: server.origin }, 'GET', '/readyz'), 200, 'readyz');
    ok(await call({ base: server.origin }, 'GET', '/metrics'), 200, 'metrics');
    // Webhook delivery by the worker: every delivery fails once, then all succeed. Only the receiver's
    // webhook is enabled then, and each phase ends when the database says so, so the statements do not
    // depend on how the worker's batches fall.
    const [hook] = await server.ctx.db.kysely.selectFrom('webhooks').select('id').where('url', '=', receiver.url('/snapshot')).execute();
    await server.ctx.db.kysely.updateTable('webhooks').set({ enabled: 0 }).where('id', '!=', hook!.id).execute();
    await server.ctx.db.kysely.updateTable('deliveries').set({ status: 'canceled' }).where('webhook_id', '!=', hook!.id).execute();
    const deliveries = () => server.ctx.db.kysely.selectFrom('deliveries').select(['status', 'attempts']).where('webhook_id', '=', hook!.id).execute();
    const until = async (done: (rows: { status: string; attempts: number }[]) => boolean) => {
      for (let i = 0; i < 3000 && !done(await deliveries()); i++) await new Promise((r) => setTimeout(r, 10));
      assert.ok(done(await deliveries()), JSON.stringify(await deliveries()));
    };
    receiver.respond = () => 503;
    const worker = new DeliveryWorker(server.ctx, { idleMs: 10 });
    worker.start();
    try {
      await until((rows) => rows.length > 0 && rows.every((d) => d.attempts >= 1));
      receiver.respond = () => 200;
      await until((rows) => rows.every((d) => d.status === 'delivered'));
    } finally {
      await worker.stop();
    }
    await findWebhookById(server.ctx.db.kysely, hook!.id);
    await listAttempts(server.ctx.db.kysely, hook!.id, 10);
    await requeue(server.ctx.db.kysely, { webhookId: hook!.id, since: 0 }, server.clock.nowMicros());
    const doomed = await createKey(server.ctx.db.kysely, world.teamId, 'sandbox', server.ctx.clock);
    await revoke(server.ctx, doomed.id, cliActor());
    await checkTagCounters(server.ctx.db, { fix: false });
    // A drifted counter, for the doctor to repair.
    await server.ctx.db.kysely.updateTable('tag_counts').set({ tag_count: 1000 }).where('team_id', '=', world.teamId).execute();
    assert.equal((await checkTagCounters(server.ctx.db, { fix: true })).fixed, true);
    await verifyMasterKeys(server.ctx);
    await bootstrapIfEmpty(server.ctx);
  } finally {
    await receiver.close();
  }
}

for (const kind of DATABASES) {
  describe(`SQL snapshot (${kind})`, () => {
    test(`sql/${kind}.sql holds the SQL of every statement the platform issues`, async () => {
      const recorder = sqlRecorder(kind === 'sqlite' ? new SqliteQueryCompiler() : new PostgresQueryCompiler());
      const server = await startServer(kind, ENV, { plugins: [recorder.plugin] });
      try {
        await drive(server);
      } finally {
        await server.close();
      }
      const file = join(SQL_DIR, `${kind}.sql`);
      const actual = snapshotText(kind, recorder.statements());
      if (UPDATE) writeFileSync(file, actual);
      let committed = '';
      try {
        committed = readFileSync(file, 'utf8');
      } catch {
        // No committed file yet: the comparison below says how to make one.
      }
      assert.equal(actual, committed, `sql/${kind}.sql is not the SQL the platform issues now: run \`npm run sql:snapshot\` and commit sql/*.sql`);
    });
  });
}
