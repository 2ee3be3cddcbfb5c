// kill -9 of a serving process while deliveries are in flight: after a restart
// every event arrives (duplicates allowed, losses not).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { startServe } from '../cli/process.js';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../../src/db/migrations.js';
import type { Db } from '../../src/db/database.js';
import { systemClock } from '../../src/time.js';
import { createKey } from '../../src/keys/service.js';
import { createTeam } from '../../src/teams/service.js';
import { DATABASES, call, freshStorage, type Storage } from '../kit/harness.js';
import { startReceiver, verify, type Receiver } from './receiver.js';

// The embedded delivery worker is the one being killed mid-delivery.
const serve = (storage: Storage) =>
  startServe({
    ...storage.env,
    TAPPROOF_EMBEDDED_WORKER: '1',
    TAPPROOF_ALLOW_PRIVATE_WEBHOOKS: '1',
    TAPPROOF_ALLOW_HTTP_WEBHOOKS: '1',
    TAPPROOF_WEBHOOK_TIMEOUT_MS: '1000',
    TAPPROOF_WEBHOOK_RETRY_SCALE: '0.00001',
  });

const killed = (child: ChildProcess) =>
  new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.on('exit', resolve)));

for (const kind of DATABASES) {
  describe(`webhook delivery survives kill -9 (${kind})`, () => {
    let storage: Storage;
    let db: Db;
    let receiver: Receiver;
    let child: ChildProcess | null = null;

    before(async () => {
      storage = await freshStorage(kind);
      db = storage.open();
      await migrate(db);
      receiver = await startReceiver();
    });
    after(async () => {
      child?.kill('SIGKILL');
      await receiver.close();
      await db.close();
      await storage.drop();
    });

    test('events pending or in flight when the server dies are delivered after it starts again', async () => {
      const { id: teamId } = await createTeam(db.kysely, 'crash', null, systemClock);
      const { key } = await createKey(db.kysely, teamId, 'sandbox', systemClock);
      // Slow answers keep deliveries in flight when the process is killed.
      receiver.respond = () => new Promise((resolve) => setTimeout(() => resolve(200), 300));

      let server = await serve(storage);
      child = server.child;
      const hook = await call({ base: server.base }, 'POST', '/webhooks', {
        key,
        body: { data: { type: 'webhooks', attributes: { url: receiver.url('/crash') } } },
      });
      assert.equal(hook.status, 201, hook.text);
      const secret = hook.body.data.attributes.secret;
      for (let batch = 0; batch < 3; batch++) {
        const data = Array.from({ length: 100 }, (_, i) => ({
          type: 'tags',
          attributes: { protocol: 'ntag_223_dna', url: `https://e.x/crash/${batch}/${i}` },
        }));
        assert.equal((await call({ base: server.base }, 'POST', '/tags', { key, body: { data } })).status, 201);
      }
      await receiver.until(() => receiver.received.length >= 1);
      child.kill('SIGKILL');
      await killed(child);

      const open = await db.kysely.selectFrom('deliveries').select('id').where('status', '=', 'pending').execute();
      assert.ok(open.length > 0, 'the kill left deliveries unfinished');

      receiver.respond = () => 200;
      server = await serve(storage);
      child = server.child;
      const events = await db.kysely.selectFrom('events').select('id').where('type', '=', 'tag.created').execute();
      assert.equal(events.length, 300);
      const arrived = () => new Set(receiver.on('/crash').map((r) => r.headers['webhook-id']));
      await receiver.until(() => events.every((e) => arrived().has(e.id)), 30_000);
      assert.ok(receiver.on('/crash').every((r) => verify(secret, r)));
      for (let i = 0; i < 200; i++) {
        if ((await db.kysely.selectFrom('deliveries').select('id').where('status', '!=', 'delivered').execute()).length === 0) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      assert.equal((await db.kysely.selectFrom('deliveries').select('id').where('status', '!=', 'delivered').execute()).length, 0);
      child.kill('SIGTERM');
      await killed(child);
      child = null;
    });
  });
}
