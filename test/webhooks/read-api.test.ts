// GET /webhooks, GET /webhooks/:id/deliveries and POST …/deliveries/:eventId/redeliver, with a real
// receiver and delivery worker: attempts are read back as stored, and a redelivery continues their numbers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DomainError } from '../../src/errors.js';
import { redeliverAsOperator } from '../../src/webhooks/deliveries.js';
import { DATABASES, call, startServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { assertBadParameter, walk } from '../http/query.js';
import { assertError } from '../kit/assertions.js';
import { FAST_WEBHOOKS, startDelivery, type Receiver } from './receiver.js';
import { cliActor } from '../../src/audit/record.js';

let n = 0;

for (const kind of DATABASES) {
  describe(`webhook reads and redelivery (${kind})`, () => {
    let server: TestServer;
    let receiver: Receiver;
    let stop: () => Promise<void>;
    /** Paths answering 500 until taken off. */
    const down = new Set<string>();

    before(async () => {
      server = await startServer(kind, FAST_WEBHOOKS);
      ({ receiver, stop } = await startDelivery(server.ctx));
      receiver.respond = (path) => (down.has(path) ? 500 : 200);
    });
    after(async () => {
      await stop();
      await server.close();
    });

    async function webhook(world: SeededTeam, path: string, key = world.sandbox.key) {
      const created = await call(server, 'POST', '/webhooks', {
        key,
        body: { data: { type: 'webhooks', attributes: { url: receiver.url(path), events: ['tag.created'] } } },
      });
      assert.equal(created.status, 201, created.text);
      return created.body.data.id as string;
    }
    async function createTags(world: SeededTeam, count: number): Promise<string[]> {
      const body = {
        data: Array.from({ length: count }, () => ({ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: `https://e.x/${kind}/reads/${++n}` } })),
      };
      const response = await call(server, 'POST', '/tags', { key: world.sandbox.key, body });
      assert.equal(response.status, 201, response.text);
      return response.body.data.map((t: { id: string }) => t.id);
    }
    const deliveries = (world: SeededTeam, id: string, query = '', key = world.sandbox.key) =>
      call(server, 'GET', `/webhooks/${id}/deliveries${query ? '?' + query : ''}`, { key });
    const redeliver = (world: SeededTeam, id: string, eventId: string, key = world.sandbox.key) =>
      call(server, 'POST', `/webhooks/${id}/deliveries/${eventId}/redeliver`, { key });
    async function settled(world: SeededTeam, id: string, done: (d: any) => boolean) {
      for (let i = 0; i < 400; i++) {
        const response = await deliveries(world, id);
        if (response.body.data.length > 0 && response.body.data.every(done)) return response.body.data;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`deliveries of ${id} did not settle`);
    }

    test("GET /webhooks lists the world's webhooks newest first, never a secret", async () => {
      const world = await server.seedTeam();
      const first = await webhook(world, '/list/1');
      const second = await webhook(world, '/list/2');
      await webhook(world, '/list/production', world.production.key);
      const response = await call(server, 'GET', '/webhooks', { key: world.sandbox.key });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        response.body.data.map((w: any) => w.id),
        [second, first],
      );
      assert.ok(!response.text.includes('whsec_'));
      assert.deepEqual(Object.keys(response.body.data[0].attributes).sort(), [
        'created_at',
        'disabled_reason',
        'enabled',
        'events',
        'previous_secret_expires_at',
        'updated_at',
        'url',
      ]);
      assert.deepEqual(response.body.data[0].attributes.url, receiver.url('/list/2'));
      const production = await call(server, 'GET', '/webhooks', { key: world.production.key });
      assert.equal(production.body.data.length, 1);
      assert.deepEqual((await call(server, 'GET', '/webhooks', { key: (await server.seedTeam()).sandbox.key })).body, { data: [] });
      assertBadParameter(await call(server, 'GET', '/webhooks?page_size=1', { key: world.sandbox.key }), 'page_size');
    });

    test('a failed delivery shows each attempt; a redelivery continues at the next number and is delivered', async () => {
      const world = await server.seedTeam();
      down.add('/down');
      const id = await webhook(world, '/down');
      const [tagId] = await createTags(world, 1);
      const [failed] = await settled(world, id, (d) => d.attributes.status === 'failed');
      assert.equal(failed.type, 'deliveries');
      assert.match(failed.id, /^evt_/);
      assert.deepEqual(
        { ...failed.attributes, attempts: undefined, created_at: undefined },
        {
          webhook_id: id,
          event_type: 'tag.created',
          tag_id: tagId,
          status: 'failed',
          next_attempt_at: null,
          attempts: undefined,
          created_at: undefined,
        },
      );
      assert.deepEqual(
        failed.attributes.attempts.map((a: any) => [a.attempt, a.status_code, a.error]),
        Array.from({ length: 8 }, (_, i) => [i + 1, 500, 'HTTP 500']),
      );
      for (const a of failed.attributes.attempts) assert.ok(Number.isInteger(a.duration_ms) && a.duration_ms >= 0);

      down.delete('/down');
      const again = await redeliver(world, id, failed.id);
      assert.equal(again.status, 202, again.text);
      assert.equal(again.body.data.id, failed.id);
      assert.equal(again.body.data.attributes.attempts.length, 8);
      const [delivered] = await settled(world, id, (d) => d.attributes.status === 'delivered');
      assert.deepEqual(
        delivered.attributes.attempts.map((a: any) => [a.attempt, a.status_code]),
        [...Array.from({ length: 8 }, (_, i) => [i + 1, 500]), [9, 200]],
      );
      assert.equal(receiver.on('/down').length, 9);

      // A delivered event may be sent again too: attempt 10.
      assert.equal((await redeliver(world, id, failed.id)).status, 202);
      const [resent] = await settled(world, id, (d) => d.attributes.status === 'delivered' && d.attributes.attempts.length === 10);
      assert.equal(resent.attributes.attempts.at(-1).attempt, 10);
    });

    test("the operator's redelivery by event continues the numbers too; an unknown event is refused", async () => {
      const world = await server.seedTeam();
      const id = await webhook(world, '/operator');
      await createTags(world, 1);
      const [first] = await settled(world, id, (d) => d.attributes.status === 'delivered');
      assert.equal(await redeliverAsOperator(server.ctx, { eventId: first.id }, cliActor()), 1);
      const [second] = await settled(world, id, (d) => d.attributes.status === 'delivered' && d.attributes.attempts.length === 2);
      assert.deepEqual(
        second.attributes.attempts.map((a: any) => a.attempt),
        [1, 2],
      );
      await assert.rejects(
        redeliverAsOperator(server.ctx, { eventId: 'evt_unknown' }, cliActor()),
        (e: unknown) => e instanceof DomainError && e.message === 'no delivery of event evt_unknown to an enabled webhook',
      );
    });

    test('redelivery refusals: unknown event 404, another world 404, a disabled webhook 409', async () => {
      const world = await server.seedTeam();
      const id = await webhook(world, '/refusals');
      await createTags(world, 1);
      const [delivery] = await settled(world, id, (d) => d.attributes.status === 'delivered');
      assertError(await redeliver(world, id, 'evt_0000000000000000000000'), 404);
      assertError(await redeliver(world, id, 'not-an-event'), 404);
      const other = await server.seedTeam();
      assertError(await redeliver(world, id, delivery.id, other.sandbox.key), 404);
      assertError(await redeliver(world, id, delivery.id, world.production.key), 404);
      // Another webhook of the same world that never had this event.
      assertError(await redeliver(world, await webhook(world, '/refusals/2'), delivery.id), 404);
      assert.equal(
        (await call(server, 'PATCH', `/webhooks/${id}`, { key: world.sandbox.key, body: { data: { type: 'webhooks', attributes: { enabled: false } } } }))
          .status,
        200,
      );
      const disabled = await redeliver(world, id, delivery.id);
      assert.equal(disabled.status, 409, disabled.text);
      assert.equal(disabled.body.errors[0].title, 'The webhook is disabled: enable it first');
      assertBadParameter(await call(server, 'POST', `/webhooks/${id}/deliveries/${delivery.id}/redeliver?now=1`, { key: world.sandbox.key }), 'now');
    });

    test('deliveries page newest first through links.next; status filter; limits; other worlds 404', async () => {
      const world = await server.seedTeam();
      const id = await webhook(world, '/pages');
      const tags = await createTags(world, 5);
      const all = await settled(world, id, (d) => d.attributes.status === 'delivered');
      assert.equal(all.length, 5);
      assert.deepEqual(
        all.map((d: any) => d.attributes.tag_id),
        [...tags].reverse(),
      );
      const { ids, pages } = await walk(
        (path) => call(server, 'GET', path.replace(server.ctx.config.apiPrefix, ''), { key: world.sandbox.key }),
        `/webhooks/${id}/deliveries?page_size=2`,
      );
      assert.deepEqual(
        ids,
        all.map((d: any) => d.id),
      );
      assert.equal(pages, 3);
      assert.equal((await deliveries(world, id, 'page_size=1')).body.data.length, 1);
      assert.equal((await deliveries(world, id, 'page_size=100')).body.links.next, null);
      assert.equal((await deliveries(world, id, 'status=delivered')).body.data.length, 5);
      assert.deepEqual((await deliveries(world, id, 'status=failed')).body, { data: [], links: { next: null } });
      for (const [query, parameter] of [
        ['page_size=0', 'page_size'],
        ['page_size=101', 'page_size'],
        ['cursor=abc!', 'cursor'],
        [`cursor=${Buffer.from('[0]').toString('base64url')}`, 'cursor'],
        [`cursor=${Buffer.from('["1"]').toString('base64url')}`, 'cursor'],
        ['status=sent', 'status'],
        ['event_id=x', 'event_id'],
      ]) {
        assertBadParameter(await deliveries(world, id, query), parameter!);
      }
      const other = await server.seedTeam();
      assertError(await deliveries(world, id, '', other.sandbox.key), 404);
      assertError(await deliveries(world, id, '', world.production.key), 404);
      assertError(await deliveries(world, 'whk_0000000000000000000000'), 404);
    });

    test("a deliveries cursor is honoured only by its webhook's list, world and query", async () => {
      const world = await server.seedTeam();
      const x = await webhook(world, '/cursors/x');
      const y = await webhook(world, '/cursors/y');
      await createTags(world, 3);
      await settled(world, x, (d) => d.attributes.status === 'delivered');
      await settled(world, y, (d) => d.attributes.status === 'delivered');
      const next = (await deliveries(world, x, 'page_size=1')).body.links.next as string;
      const cursor = new URL(next, server.origin).searchParams.get('cursor')!;
      assert.equal((await deliveries(world, x, `page_size=1&cursor=${cursor}`)).status, 200);
      // Another webhook of the same world, other filters, another world: all refused, never another list's page.
      assertBadParameter(await deliveries(world, y, `page_size=1&cursor=${cursor}`), 'cursor');
      assertBadParameter(await deliveries(world, x, `page_size=1&status=delivered&cursor=${cursor}`), 'cursor');
      assertBadParameter(await deliveries(world, x, `page_size=2&cursor=${cursor}`), 'cursor');
      assertBadParameter(await deliveries(world, x, `page_size=1&cursor=${cursor}`, world.production.key), 'cursor');
      assertBadParameter(await deliveries(world, x, `page_size=1&cursor=${cursor}`, (await server.seedTeam()).sandbox.key), 'cursor');
      // A position written by hand, in the unsigned format or under a signed cursor's tag.
      const forged = Buffer.from(JSON.stringify([9007199254740991])).toString('base64url');
      assertBadParameter(await deliveries(world, x, `page_size=1&cursor=${forged}`), 'cursor');
      assertBadParameter(await deliveries(world, x, `page_size=1&cursor=${cursor.slice(0, 22)}${forged}`), 'cursor');
      // The walk still sees each of the webhook's deliveries once.
      const { ids } = await walk(
        (path) => call(server, 'GET', path.replace(server.ctx.config.apiPrefix, ''), { key: world.sandbox.key }),
        `/webhooks/${x}/deliveries?page_size=1`,
      );
      assert.deepEqual(
        ids,
        (await deliveries(world, x)).body.data.map((d: any) => d.id),
      );
      assert.equal(new Set(ids).size, 3);
    });
  });
}
