import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { markConfigured, recordConfigurationFailure } from '../../src/tags/service.js';
import { DeliveryWorker } from '../../src/webhooks/worker.js';
import { cli } from '../cli/process.js';
import { DATABASES, call, startServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { startReceiver, verify, type Receiver } from './receiver.js';

const FAST = {
  TAPPROOF_ALLOW_PRIVATE_WEBHOOKS: '1',
  TAPPROOF_ALLOW_HTTP_WEBHOOKS: '1',
  TAPPROOF_WEBHOOK_RETRY_SCALE: '0.00001',
  TAPPROOF_WEBHOOK_TIMEOUT_MS: '3000',
};

const tagEntry = (url: string) => ({ type: 'tags', attributes: { protocol: 'ntag_424_dna', url } });

for (const kind of DATABASES) {
  describe(`webhook delivery (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    let receiver: Receiver;
    let worker: DeliveryWorker;
    let n = 0;

    before(async () => {
      server = await startServer(kind, FAST);
      world = await server.seedTeam();
      receiver = await startReceiver();
      worker = new DeliveryWorker(server.ctx, { idleMs: 20 });
      worker.start();
    });
    after(async () => {
      await worker.stop();
      await receiver.close();
      await server.close();
    });

    async function webhook(path: string, attributes: Record<string, unknown> = {}, key = world.sandbox.key) {
      const created = await call(server, 'POST', '/webhooks', {
        key,
        body: { data: { type: 'webhooks', attributes: { url: receiver.url(path), ...attributes } } },
      });
      assert.equal(created.status, 201, created.text);
      return { id: created.body.data.id as string, secret: created.body.data.attributes.secret as string };
    }
    async function createTags(count: number, key = world.sandbox.key) {
      const response = await call(server, 'POST', '/tags', {
        key,
        body: { data: Array.from({ length: count }, () => tagEntry(`https://e.x/${kind}/${++n}`)) },
      });
      assert.equal(response.status, 201, response.text);
      return response.body.data as { id: string }[];
    }
    const eventsOf = (tagId: string) => server.ctx.db.kysely.selectFrom('events').selectAll().where('tag_id', '=', tagId).orderBy('seq').execute();
    const deliveryCount = async (webhookId: string) =>
      Number(
        (
          await server.ctx.db.kysely
            .selectFrom('deliveries')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('webhook_id', '=', webhookId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const patch = (id: string, attributes: Record<string, unknown>) =>
      call(server, 'PATCH', `/webhooks/${id}`, { key: world.sandbox.key, body: { data: { type: 'webhooks', attributes } } });
    const tapproof = async (...args: string[]) => (await cli(server, args)).stdout;

    test('each of the four kinds arrives once per subscribed endpoint, signed, with the stored body; filters, deleted and disabled webhooks hold', async () => {
      const all = await webhook('/all');
      const onlyDeleted = await webhook('/only-deleted', { events: ['tag.deleted'] });
      const removed = await webhook('/removed');
      const off = await webhook('/off');
      assert.equal((await call(server, 'DELETE', `/webhooks/${removed.id}`, { key: world.sandbox.key })).status, 204);
      assert.equal((await patch(off.id, { enabled: false })).status, 200);
      const production = await webhook('/production', {}, world.production.key);

      const [t1, t2, t3] = await createTags(3);
      await server.ctx.db.kysely.transaction().execute((trx) => markConfigured(trx, { teamId: world.teamId, mode: 'sandbox' }, t1.id, server.ctx.clock));
      await server.ctx.db.kysely
        .transaction()
        .execute((trx) => recordConfigurationFailure(trx, { teamId: world.teamId, mode: 'sandbox' }, t2.id, server.ctx.clock));
      assert.equal((await call(server, 'DELETE', `/tags/${t3.id}`, { key: world.sandbox.key })).status, 204);

      await receiver.until(() => receiver.on('/all').length >= 6 && receiver.on('/only-deleted').length >= 1);
      const got = receiver.on('/all');
      assert.equal(got.length, 6);
      assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, 6);
      const expected = [...(await eventsOf(t1.id)), ...(await eventsOf(t2.id)), ...(await eventsOf(t3.id))];
      assert.deepEqual(expected.map((e) => e.type).sort(), [
        'tag.configuration_failed',
        'tag.configured',
        'tag.created',
        'tag.created',
        'tag.created',
        'tag.deleted',
      ]);
      for (const event of expected) {
        const r = got.find((x) => x.headers['webhook-id'] === event.id);
        assert.ok(r, `event ${event.type} arrived`);
        assert.equal(r.body, event.payload);
        assert.ok(verify(all.secret, r), 'signature verifies with the webhook secret');
        assert.match(String(r.headers['webhook-timestamp']), /^\d{10}$/);
        assert.ok(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
        assert.equal(r.headers['content-type'], 'application/json');
        const payload = JSON.parse(r.body);
        assert.equal(payload.type, event.type);
        assert.equal(payload.data.id, event.tag_id);
        assert.equal(payload.data.type, 'tags');
      }
      const configured = JSON.parse(got.find((r) => JSON.parse(r.body).type === 'tag.configured')!.body);
      assert.equal(configured.data.attributes.status, 'configured');
      const deleted = JSON.parse(receiver.on('/only-deleted')[0].body);
      assert.equal(deleted.type, 'tag.deleted');
      assert.equal(deleted.data.id, t3.id);
      assert.equal(deleted.data.attributes.url, `https://e.x/${kind}/${n}`);
      assert.equal(receiver.on('/only-deleted').length, 1);
      for (const hook of [removed, off, production]) assert.equal(await deliveryCount(hook.id), 0);
      assert.equal(receiver.on('/removed').length + receiver.on('/off').length + receiver.on('/production').length, 0);
      await patch(all.id, { enabled: false });
      await patch(onlyDeleted.id, { enabled: false });
    });

    test('a test event reaches only the webhook it names, signed, whatever it subscribes to; a disabled one is refused', async () => {
      const target = await webhook('/test-target', { events: ['tag.deleted'] });
      const bystander = await webhook('/test-bystander');
      const sent = await call(server, 'POST', `/webhooks/${target.id}/test`, { key: world.sandbox.key });
      assert.equal(sent.status, 202, sent.text);
      const eventId: string = sent.body.data.id;
      assert.match(eventId, /^evt_[0-9A-Za-z]{22}$/);
      assert.deepEqual(sent.body.data.attributes, {
        webhook_id: target.id,
        event_type: 'webhook.test',
        tag_id: null,
        status: 'pending',
        created_at: sent.body.data.attributes.created_at,
        next_attempt_at: sent.body.data.attributes.created_at,
        attempts: [],
      });
      await receiver.until(() => receiver.on('/test-target').length >= 1);
      const [got] = receiver.on('/test-target');
      assert.equal(receiver.on('/test-target').length, 1);
      assert.equal(got!.headers['webhook-id'], eventId);
      assert.ok(verify(target.secret, got!), 'signed with the webhook secret');
      const payload = JSON.parse(got!.body);
      assert.deepEqual(Object.keys(payload), ['type', 'timestamp', 'data']);
      assert.equal(payload.type, 'webhook.test');
      assert.deepEqual(payload.data, { webhook_id: target.id, message: 'A test event sent from tapproof: no tag changed.' });
      // Delivered, recorded, and sent nowhere else.
      // The worker records the answer just after the receiver has it.
      const deliveryOf = async () =>
        (await call(server, 'GET', `/webhooks/${target.id}/deliveries`, { key: world.sandbox.key })).body.data.find((d: any) => d.id === eventId);
      for (let i = 0; i < 200 && (await deliveryOf()).attributes.status === 'pending'; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      const delivery = await deliveryOf();
      assert.equal(delivery.attributes.status, 'delivered');
      assert.equal(delivery.attributes.attempts.length, 1);
      assert.equal(await deliveryCount(bystander.id), 0);
      assert.equal(receiver.on('/test-bystander').length, 0);
      const audit = await server.ctx.db.kysely
        .selectFrom('audit_events')
        .select(['operation', 'resource_id', 'changes'])
        .where('operation', '=', 'webhook.test')
        .execute();
      assert.deepEqual(audit, [{ operation: 'webhook.test', resource_id: target.id, changes: JSON.stringify({ event_id: eventId }) }]);
      // Disabled: 409 and nothing queued; another world's key: 404.
      assert.equal((await patch(target.id, { enabled: false })).status, 200);
      const refused = await call(server, 'POST', `/webhooks/${target.id}/test`, { key: world.sandbox.key });
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.body.errors[0].title, 'The webhook is disabled: enable it first');
      const elsewhere = await call(server, 'POST', `/webhooks/${bystander.id}/test`, { key: world.production.key });
      assert.equal(elsewhere.status, 404, elsewhere.text);
      assert.equal(await deliveryCount(target.id), 1);
      await patch(bystander.id, { enabled: false });
    });

    test('a receiver answering 500 then 200 gets the event again with the same webhook-id; every attempt is recorded', async () => {
      const hook = await webhook('/flaky', { events: ['tag.created'] });
      receiver.respond = (path, nth) => (path === '/flaky' && nth === 1 ? 500 : 200);
      const [tag] = await createTags(1);
      await receiver.until(() => receiver.on('/flaky').length >= 2);
      const [first, second] = receiver.on('/flaky');
      assert.equal(first.status, 500);
      assert.equal(second.status, 200);
      const [event] = await eventsOf(tag.id);
      assert.equal(first.headers['webhook-id'], event.id);
      assert.equal(second.headers['webhook-id'], event.id);
      assert.equal(second.body, first.body);
      assert.ok(verify(hook.secret, first) && verify(hook.secret, second));

      const attempts = JSON.parse(await tapproof('webhooks', 'attempts', hook.id, '--json'));
      assert.deepEqual(
        attempts.map((a: any) => [a.event_id, a.attempt, a.status]),
        [
          [event.id, 2, 200],
          [event.id, 1, 500],
        ],
      );
      assert.equal(attempts[1].error, 'HTTP 500');
      assert.ok(attempts.every((a: any) => Number.isInteger(a.duration_ms)));

      // The operator resends the event: it arrives once more, with the same id.
      const out = JSON.parse(await tapproof('webhooks', 'redeliver', '--event', event.id, '--json'));
      assert.equal(out.requeued, 1);
      await receiver.until(() => receiver.on('/flaky').length >= 3);
      assert.equal(receiver.on('/flaky')[2].headers['webhook-id'], event.id);
      // The resend is attempt 3, after the two before it; the listing names the event's kind and tag under a header row.
      let latest: any[] = [];
      for (let i = 0; i < 200 && latest.length < 3; i++) {
        latest = JSON.parse(await tapproof('webhooks', 'attempts', hook.id, '--json'));
        if (latest.length < 3) await new Promise((r) => setTimeout(r, 20));
      }
      assert.deepEqual(
        latest.map((a: any) => [a.attempt, a.status, a.event_type, a.tag_id]),
        [
          [3, 200, event.type, tag.id],
          [2, 200, event.type, tag.id],
          [1, 500, event.type, tag.id],
        ],
      );
      const lines = (await tapproof('webhooks', 'attempts', hook.id)).trimEnd().split('\n');
      assert.match(lines[0]!, /^started_at +event_id +event_type +tag_id +attempt +status +duration_ms +error$/);
      assert.equal(lines.length, 4);
      assert.match(lines[1]!, new RegExp(`^\\S+Z  ${event.id}  ${event.type.replace('.', '\\.')} +${tag.id}  #3 +200 +\\d+ ms$`));
      assert.match(lines[3]!, /#1 +500 +\d+ ms +HTTP 500$/);
      await patch(hook.id, { enabled: false });
    });

    test("each attempt keeps the first 512 bytes of the endpoint's answer, as text", async () => {
      const hook = await webhook('/answers', { events: ['tag.created'] });
      // 1: a refusal with a long reason; 2: binary with NUL and a character cut at byte 512; 3: an empty 204.
      const reason = 'upstream said no: ' + 'x'.repeat(600);
      const cut = Buffer.concat([Buffer.from([0x7b, 0x00, 0x7d]), Buffer.alloc(508, 0x61), Buffer.from('€', 'utf8')]);
      receiver.respond = (path, nth) => (path !== '/answers' ? 200 : nth === 1 ? 503 : nth === 2 ? 500 : 204);
      receiver.answer = (path, nth) => (path !== '/answers' ? undefined : nth === 1 ? reason : nth === 2 ? cut : undefined);
      await createTags(1);
      await receiver.until(() => receiver.on('/answers').length >= 3);
      let attempts: any[] = [];
      for (let i = 0; i < 200 && attempts.length < 3; i++) {
        const page = await call(server, 'GET', `/webhooks/${hook.id}/deliveries`, { key: world.sandbox.key });
        attempts = page.body.data[0]?.attributes.attempts ?? [];
        if (attempts.length < 3) await new Promise((r) => setTimeout(r, 20));
      }
      assert.deepEqual(
        attempts.map((a) => [a.status_code, a.error, a.response_body]),
        [
          [503, 'HTTP 503', reason.slice(0, 512)],
          [500, 'HTTP 500', '{\uFFFD}' + 'a'.repeat(508)],
          [204, null, ''],
        ],
      );
      receiver.answer = () => undefined;
      await patch(hook.id, { enabled: false });
    });

    /** The webhook's attributes once the worker has disabled it (or after ~2 s). */
    const disabledState = async (id: string) => {
      let state;
      for (let i = 0; i < 100; i++) {
        state = (await call(server, 'GET', `/webhooks/${id}`, { key: world.sandbox.key })).body.data.attributes;
        if (!state.enabled) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      return state;
    };

    test('a receiver answering 410 disables the endpoint; it gets nothing more', async () => {
      const hook = await webhook('/gone', { events: ['tag.created'] });
      receiver.respond = (path) => (path === '/gone' ? 410 : 200);
      await createTags(1);
      await receiver.until(() => receiver.on('/gone').length >= 1);
      const state = await disabledState(hook.id);
      assert.equal(state.enabled, false);
      assert.equal(state.disabled_reason, 'gone');
      await createTags(2);
      assert.equal(await deliveryCount(hook.id), 1);
      // Enabling it again is the team's decision, and works.
      receiver.respond = () => 200;
      assert.equal((await patch(hook.id, { enabled: true })).body.data.attributes.disabled_reason, null);
      await createTags(1);
      await receiver.until(() => receiver.on('/gone').length >= 2);
      await patch(hook.id, { enabled: false });
    });

    test('failed deliveries of a webhook since a time can be resent by the operator', async () => {
      const hook = await webhook('/down', { events: ['tag.created'] });
      receiver.respond = (path) => (path === '/down' ? 503 : 200);
      const since = new Date(Date.now() - 1000).toISOString();
      await createTags(2);
      // 8 attempts each on the schedule (scaled: ~1 s in all), then the deliveries have failed.
      const open = () => server.ctx.db.kysely.selectFrom('deliveries').select('id').where('webhook_id', '=', hook.id).where('status', '!=', 'failed').execute();
      for (let i = 0; i < 1500 && (await open()).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal((await open()).length, 0);
      const attempts = await server.ctx.db.kysely.selectFrom('delivery_attempts').select(['event_id', 'attempt']).where('webhook_id', '=', hook.id).execute();
      assert.equal(attempts.length, 16);
      assert.deepEqual([...new Set(attempts.map((a) => a.attempt))].sort(), [1, 2, 3, 4, 5, 6, 7, 8]);
      receiver.respond = () => 200;
      const out = JSON.parse(await tapproof('webhooks', 'redeliver', '--webhook', hook.id, '--since', since, '--json'));
      assert.equal(out.requeued, 2);
      await receiver.until(() => receiver.on('/down').filter((r) => r.status === 200).length >= 2);
      assert.equal(new Set(receiver.on('/down').map((r) => r.headers['webhook-id'])).size, 2);
      await patch(hook.id, { enabled: false });
    });

    test('a redirect is not followed and counts as a failure; an endpoint failing for 5 days is disabled', async () => {
      const hook = await webhook('/moved', { events: ['tag.created'] });
      // The streak began six days ago: the next failure ends it.
      await server.ctx.db.kysely
        .updateTable('webhooks')
        .set({ failing_since: Date.now() * 1000 - 6 * 24 * 3600 * 1e6 })
        .where('id', '=', hook.id)
        .execute();
      receiver.respond = (path) => (path === '/moved' ? 302 : 200);
      await createTags(1);
      await receiver.until(() => receiver.on('/moved').length >= 1);
      const state = await disabledState(hook.id);
      assert.equal(state.enabled, false);
      assert.equal(state.disabled_reason, 'failing');
      assert.equal(receiver.on('/followed').length, 0);
      const [attempt] = await server.ctx.db.kysely.selectFrom('delivery_attempts').selectAll().where('webhook_id', '=', hook.id).execute();
      assert.equal(attempt.status_code, 302);
      assert.equal(attempt.error, 'redirect not followed');
      receiver.respond = () => 200;
    });

    test('an endpoint slower than the timeout fails the attempt, which is retried', async () => {
      const hook = await webhook('/slow', { events: ['tag.created'] });
      receiver.respond = (path, nth) => (path === '/slow' && nth === 1 ? new Promise((r) => setTimeout(() => r(200), 4000)) : 200);
      await createTags(1);
      await receiver.until(() => receiver.on('/slow').length >= 2);
      const attempts = await server.ctx.db.kysely.selectFrom('delivery_attempts').selectAll().where('webhook_id', '=', hook.id).orderBy('id').execute();
      assert.equal(attempts[0].status_code, null);
      assert.match(attempts[0].error!, /^timeout after 3000 ms/);
      assert.ok(attempts[0].duration_ms >= 3000);
      receiver.respond = () => 200;
      await patch(hook.id, { enabled: false });
    });

    test('a batch of 500 tags yields 500 tag.created deliveries; a rejected batch yields none', async () => {
      const hook = await webhook('/batch', { events: ['tag.created'] });
      const rejected = await call(server, 'POST', '/tags', {
        key: world.sandbox.key,
        body: { data: [...Array.from({ length: 499 }, (_, i) => tagEntry(`https://e.x/rejected/${kind}/${i}`)), tagEntry('')] },
      });
      assert.equal(rejected.status, 422);
      const tags = await createTags(500);
      await receiver.until(() => new Set(receiver.on('/batch').map((r) => r.headers['webhook-id'])).size >= 500);
      assert.equal(await deliveryCount(hook.id), 500);
      const ids = new Set(receiver.on('/batch').map((r) => JSON.parse(r.body).data.id));
      assert.deepEqual([...ids].sort(), tags.map((t) => t.id).sort());
      await patch(hook.id, { enabled: false });
    });

    test('during a rotation both secrets sign each delivery', async () => {
      const hook = await webhook('/rotated', { events: ['tag.created'] });
      const rotated = await patch(hook.id, { rotate_secret: true });
      const fresh = rotated.body.data.attributes.secret;
      await createTags(1);
      await receiver.until(() => receiver.on('/rotated').length >= 1);
      const r = receiver.on('/rotated')[0];
      assert.equal(String(r.headers['webhook-signature']).split(' ').length, 2);
      assert.ok(verify(fresh, r) && verify(hook.secret, r));
      await patch(hook.id, { enabled: false });
    });

    test('without the operator flag, private and loopback targets are refused at delivery time', async () => {
      const named = await webhook('/ssrf-name', { events: ['tag.created'] });
      const literal = await webhook('/ssrf-literal', { events: ['tag.created'] });
      // Point one at localhost by name (resolved, then refused), the other stays a literal 127.0.0.1.
      await server.ctx.db.kysely
        .updateTable('webhooks')
        .set({ url: receiver.url('/ssrf-name').replace('127.0.0.1', 'localhost') })
        .where('id', '=', named.id)
        .execute();
      await worker.stop();
      const strict = new DeliveryWorker({ ...server.ctx, config: { ...server.ctx.config, allowPrivateWebhooks: false } }, { idleMs: 20 });
      strict.start();
      try {
        await createTags(1);
        for (let i = 0; i < 200; i++) {
          const attempts = await server.ctx.db.kysely.selectFrom('delivery_attempts').selectAll().where('webhook_id', 'in', [named.id, literal.id]).execute();
          if (attempts.length >= 2) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        const attempts = await server.ctx.db.kysely.selectFrom('delivery_attempts').selectAll().where('webhook_id', 'in', [named.id, literal.id]).execute();
        assert.ok(attempts.length >= 2);
        for (const a of attempts) {
          assert.equal(a.status_code, null);
          assert.match(a.error!, /^refused: .*loopback/);
        }
        assert.equal(receiver.on('/ssrf-name').length + receiver.on('/ssrf-literal').length, 0);
      } finally {
        await strict.stop();
        await patch(named.id, { enabled: false });
        await patch(literal.id, { enabled: false });
        worker = new DeliveryWorker(server.ctx, { idleMs: 20 });
        worker.start();
      }
    });
  });
}
