// Mail as deployed, on both engines: `tapproof serve` without its embedded worker queues an emailed invite
// and sends nothing; the mail waits in the outbox (a row, not a promise in memory) until a `tapproof
// worker` process starts, which sends it once. The mailed link opens the console's welcome page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { createKey } from '../../src/keys/service.js';
import { createTeam } from '../../src/teams/service.js';
import { startServe, startWorker, type LongRunning, type ServeProcess } from '../cli/process.js';
import { DATABASES, call, freshStorage, type Storage } from '../kit/harness.js';
import { startSmtp, type TestSmtp } from '../kit/smtp.js';

for (const kind of DATABASES) {
  describe(`mail across processes (${kind})`, () => {
    let storage: Storage;
    let smtp: TestSmtp;
    let serve: ServeProcess;
    let worker: LongRunning | undefined;
    let ctx: AppContext;
    let env: Record<string, string>;

    before(async () => {
      storage = await freshStorage(kind);
      smtp = await startSmtp();
      env = { ...storage.env, TAPPROOF_SMTP_URL: smtp.url, TAPPROOF_PUBLIC_URL: 'https://console.example.com' };
      serve = await startServe({ ...env, TAPPROOF_EMBEDDED_WORKER: 'false' });
      ctx = createContext(storage.open(), loadConfig(env));
    });
    after(async () => {
      await worker?.stop();
      await serve?.stop();
      await ctx?.db.close();
      await smtp?.close();
      await storage?.drop();
    });

    test('an invite queued by serve is sent once by a worker started later', async () => {
      const teamId = (await createTeam(ctx.db.kysely, 'mail', null, ctx.clock)).id;
      const key = (await createKey(ctx.db.kysely, teamId, 'production', ctx.clock, { role: 'admin' })).key;
      const invited = await call(serve, 'POST', '/users', {
        key,
        body: { data: { type: 'users', attributes: { email: `w-${kind}@example.com`, role: 'read' } } },
      });
      assert.equal(invited.status, 201, invited.text);
      assert.equal(invited.body.data.attributes.link.url, null);
      await sleep(3000);
      assert.equal(smtp.received.length, 0);
      const queued = () => ctx.db.kysely.selectFrom('mail_outbox').select(['kind', 'status', 'attempts']).execute();
      assert.deepEqual(await queued(), [{ kind: 'invite', status: 'pending', attempts: 0 }]);
      worker = await startWorker(env);
      for (let i = 0; i < 100 && smtp.received.length === 0; i++) await sleep(100);
      await sleep(2500); // another round of the job: still one mail
      assert.deepEqual(
        smtp.received.map((m) => m.to),
        [[`w-${kind}@example.com`]],
      );
      assert.deepEqual(await queued(), [{ kind: 'invite', status: 'sent', attempts: 1 }]);
      const url = /https:\/\/console\.example\.com\/console\/welcome#\S+/.exec(smtp.received[0]!.text)![0];
      const welcome = await fetch(`${serve.origin}${new URL(url).pathname}`);
      assert.equal(welcome.status, 200);
    });
  });
}
