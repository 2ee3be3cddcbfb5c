// The README's sandbox flow end to end, every piece real: a tag created with the API, `tapproof
// writer` as its own process over HTTP (onto the emulated card, and through pcscd + vsmartcard vpcd),
// tag.configured delivered to a webhook receiver on loopback and signed, `tapproof emulator tap`,
// POST /verifications genuine, then an older URL replayed; a TagTamper tag whose url has a query.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, call, startServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { FAST_WEBHOOKS, startDelivery, verify as verifySignature, type Receiver } from '../webhooks/receiver.js';
import { startEmulatorReader, type LongRunning } from '../cli/process.js';
import { cli as runCli, createdTag, pcscSkip, verify, vpcdReader } from './helpers.js';

// vpcd's second slot, so this file and cli.test.ts (first slot) can run side by side.
const VPCD_PORT = Number(process.env.TAPPROOF_TEST_E2E_VPCD_PORT ?? 35964);

for (const kind of DATABASES) {
  describe(`sandbox end to end (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    let receiver: Receiver;
    let stopDelivery: () => Promise<void>;
    let secret: string;

    before(async () => {
      server = await startServer(kind, FAST_WEBHOOKS);
      world = await server.seedTeam();
      ({ receiver, stop: stopDelivery } = await startDelivery(server.ctx));
      const hook = await call(server, 'POST', '/webhooks', {
        key: world.sandbox.key,
        body: { data: { type: 'webhooks', attributes: { url: receiver.url('/hook'), events: ['tag.configured'] } } },
      });
      assert.equal(hook.status, 201, hook.text);
      secret = hook.body.data.attributes.secret;
    });
    after(async () => {
      await stopDelivery();
      await server.close();
    });

    const cli = (...args: string[]) => runCli(server, args);
    const writer = (...args: string[]) => cli('writer', '--key', world.sandbox.key, '--server', server.base, '--json', ...args);
    const tap = async (tagId: string): Promise<{ url: string; counter: number }> => {
      const r = await cli('emulator', 'tap', tagId, '--json');
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    const attributesOf = async (url: string) => {
      const r = await verify(server, world.sandbox.key, url);
      assert.equal(r.status, 201, r.text);
      return r.body.data.attributes;
    };

    /** The one tag.configured the receiver got for `tagId`: signed, the tag configured. */
    async function configuredDelivery(tagId: string): Promise<void> {
      const mine = () => receiver.on('/hook').filter((r) => JSON.parse(r.body).data.id === tagId);
      await receiver.until(() => mine().length >= 1);
      const [delivery, ...more] = mine();
      assert.equal(more.length, 0);
      assert.ok(verifySignature(secret, delivery!), 'the delivery verifies with the webhook secret');
      const body = JSON.parse(delivery!.body);
      assert.equal(body.type, 'tag.configured');
      assert.equal(body.data.attributes.status, 'configured');
      const stored = await server.ctx.db.kysely.selectFrom('events').select('id').where('tag_id', '=', tagId).where('type', '=', 'tag.configured').execute();
      assert.deepEqual(
        stored.map((e) => e.id),
        [delivery!.headers['webhook-id']],
      );
    }

    /**
     * Taps as a phone would: the first URL genuine; two more taps and the newest genuine; then the
     * middle one, older than the last accepted and never sent, replayed.
     */
    async function tapsVerify(tagId: string, url: string): Promise<void> {
      const first = await tap(tagId);
      assert.ok(first.url.startsWith(`${url}?picc_data=`), first.url);
      const a = await attributesOf(first.url);
      assert.equal(a.genuine, true);
      assert.equal(a.tag_id, tagId);
      const older = await tap(tagId);
      const newer = await tap(tagId);
      assert.deepEqual([older.counter, newer.counter], [first.counter + 1, first.counter + 2]);
      assert.equal((await attributesOf(newer.url)).genuine, true);
      const replay = await attributesOf(older.url);
      assert.equal(replay.genuine, false);
      assert.equal(replay.reason, 'replayed');
    }

    it('API tag → tapproof writer (emulator) → tag.configured at the receiver → emulator tap genuine → older URL replayed', async () => {
      const { id, url } = await createdTag(server, world.sandbox.key);
      const r = await writer(id);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { writeId: JSON.parse(r.stdout).writeId, tagId: id, status: 'configured', reason: null, roundTrips: 3 });
      await configuredDelivery(id);
      await tapsVerify(id, url);
    });

    it('a TagTamper tag whose url has a query: the query is kept, closed, then open after tamper open', async () => {
      const { id, url } = await createdTag(server, world.sandbox.key, 'ntag_424_dna_tag_tamper', `https://example.com/tt/${kind}?lot=7&batch=a`);
      assert.equal(JSON.parse((await writer(id)).stdout).status, 'configured');
      await configuredDelivery(id);
      const closed = await tap(id);
      assert.ok(closed.url.startsWith(`${url}&picc_data=`), closed.url);
      const c = await attributesOf(closed.url);
      assert.equal(c.genuine, true);
      assert.equal(c.tamper.current, 'closed');
      assert.equal((await cli('emulator', 'tamper', id, 'open')).code, 0);
      const open = await tap(id);
      assert.ok(open.url.startsWith(`${url}&picc_data=`), open.url);
      const o = await attributesOf(open.url);
      assert.equal(o.genuine, true);
      assert.equal(o.tamper.current, 'open');
    });

    it('the same with --reader pcsc through pcscd and vsmartcard vpcd, the chip held there by `tapproof emulator reader`', { skip: pcscSkip() }, async (t) => {
      const { id, url } = await createdTag(server, world.sandbox.key);
      // The reader command puts the emulator's card for this tag into the virtual reader, so `emulator tap` taps it after.
      let reader: LongRunning;
      try {
        reader = await startEmulatorReader(server.storage.env, id, ['--port', String(VPCD_PORT)]);
      } catch (e) {
        if (!/cannot reach the vpcd virtual reader/.test((e as Error).message)) throw e;
        return t.skip(`pcscd with vsmartcard-vpcd is not reachable on port ${VPCD_PORT} (start pcscd)`);
      }
      try {
        assert.deepEqual(JSON.parse(reader.stdout()), { tag_id: id, reader: vpcdReader(VPCD_PORT), host: '127.0.0.1', port: VPCD_PORT, blank: true });
        const r = await writer('--reader', 'pcsc', '--pcsc-reader', vpcdReader(VPCD_PORT), id);
        assert.equal(r.code, 0, r.stderr + r.stdout);
        assert.equal(JSON.parse(r.stdout).status, 'configured');
      } finally {
        assert.equal(await reader.stop(), 0, reader.stderr());
      }
      assert.equal(reader.stderr(), '');
      await configuredDelivery(id);
      await tapsVerify(id, url);
    });

    it('tapproof emulator reader where no virtual reader listens: one line, exit 1', async () => {
      const r = await cli('emulator', 'reader', 'tag_nowhere', '--port', '1');
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^tapproof: cannot reach the vpcd virtual reader at 127\.0\.0\.1:1 \(is pcscd running with vsmartcard-vpcd\?\): .+\n$/);
      assert.equal((await cli('emulator', 'reader', '../etc')).stderr, 'tapproof: not a tag id: ../etc\n');
    });
  });
}
