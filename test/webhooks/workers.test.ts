import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DeliveryWorker } from '../../src/webhooks/worker.js';
import { DATABASES, call, startServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { startReceiver, type Receiver } from './receiver.js';

for (const kind of DATABASES) {
  describe(`several workers share the deliveries (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    let receiver: Receiver;
    before(async () => {
      server = await startServer(kind, { TAPPROOF_ALLOW_PRIVATE_WEBHOOKS: '1', TAPPROOF_ALLOW_HTTP_WEBHOOKS: '1' });
      world = await server.seedTeam();
      receiver = await startReceiver();
    });
    after(async () => {
      await receiver.close();
      await server.close();
    });

    test('three workers on their own connections send each event exactly once', async () => {
      const hook = await call(server, 'POST', '/webhooks', {
        key: world.sandbox.key,
        body: { data: { type: 'webhooks', attributes: { url: receiver.url('/shared') } } },
      });
      assert.equal(hook.status, 201);
      for (let batch = 0; batch < 3; batch++) {
        const data = Array.from({ length: 500 }, (_, i) => ({ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: `https://e.x/w/${batch}/${i}` } }));
        assert.equal((await call(server, 'POST', '/tags', { key: world.sandbox.key, body: { data } })).status, 201);
      }
      const dbs = [server.storage.open(), server.storage.open(), server.storage.open()];
      const workers = dbs.map((db) => new DeliveryWorker({ ...server.ctx, db }, { idleMs: 10, batch: 50 }));
      workers.forEach((w) => w.start());
      try {
        await receiver.until(() => receiver.received.length >= 1500);
        for (let i = 0; i < 100; i++) {
          const open = await server.ctx.db.kysely.selectFrom('deliveries').select('id').where('status', '!=', 'delivered').execute();
          if (open.length === 0) break;
          await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
        await Promise.all(dbs.map((db) => db.close()));
      }
      const ids = receiver.on('/shared').map((r) => r.headers['webhook-id']);
      assert.equal(ids.length, 1500);
      assert.equal(new Set(ids).size, 1500);
    });
  });
}
