// A rekey cut at every single command (the chip removed before it, or after it ran with its answer lost),
// a wrong answer and a read back that does not verify: each leaves a chip whose genuine taps verify under
// whichever keys it holds (committed, pending, or the pending meta read key beside the committed file read
// key), a counter that only goes up, a tag still configured with no event, and a rerun that completes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { PROBE_AND_AUTH, commandSteps } from './commands.js';
import { WriterClient } from '../../src/writer/relay.js';
import { chipOf, createdTag, eventsOf, newCard, rekey, tapsGenuine, writeTag } from './helpers.js';

for (const kind of DATABASES) {
  describe(`writer rekey faults (${kind})`, () => {
    const suite = sharedServer(kind);
    // The 20 commands of a rekey of a written 424 (probe 11, auth 1, rekey 5 + read back 3), by INS and rank.
    const NAMES: [number, string][] = [
      ...PROBE_AND_AUTH,
      [0xc4, 'ChangeKey 1'],
      [0xc4, 'ChangeKey 2'],
      [0xc4, 'ChangeKey 3'],
      [0xc4, 'ChangeKey 4'],
      [0xc4, 'ChangeKey 0'],
      [0xa4, 'ISOSelectFile (application, read back)'],
      [0xa4, 'ISOSelectFile (NDEF file, read back)'],
      [0xb0, 'ISOReadBinary (read back)'],
    ];
    /** Where the batch that changes keys starts. */
    const REKEY_BATCH = 12;
    const steps = commandSteps(NAMES);

    /** A tag written onto a fresh card and tapped once. */
    async function writtenChip() {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const card = newCard();
      assert.equal((await writeTag(server, world.sandbox.key, id, card)).status, 'configured');
      const first = await tapsGenuine(server, world.sandbox.key, card, id);
      return { id, card, first };
    }

    /** After a cut rekey: a tap verifies, a rerun rekeys, a tap verifies; the counter rose throughout; no event but tag.rekeyed. */
    async function recovers(id: string, card: ReturnType<typeof newCard>, last: number) {
      const { server, world } = suite;
      const key = world.sandbox.key;
      card.powerOn();
      const between = await tapsGenuine(server, key, card, id);
      assert.ok(between.counter > last);
      const rerun = await rekey(server, key, id, card);
      assert.equal(rerun.status, 'rekeyed', JSON.stringify(rerun));
      const after = await tapsGenuine(server, key, card, id);
      assert.ok(after.counter > between.counter);
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((k) => card.keyVersion(k)),
        [2, 2, 2, 2, 2],
      );
      const chip = await chipOf(server, id);
      assert.deepEqual([chip.key_version, chip.pending_key_version, chip.last_counter], [2, null, after.counter]);
      assert.deepEqual(
        (await eventsOf(server, id)).map((e) => e.type),
        ['tag.created', 'tag.configured', 'tag.rekeyed'],
      );
      const tag = await server.ctx.db.kysely.selectFrom('tags').select('status').where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(tag.status, 'configured');
    }

    it('a clean rekey sends exactly these commands', async () => {
      const { id, card } = await writtenChip();
      card.log.length = 0;
      assert.equal((await rekey(suite.server, suite.world.sandbox.key, id, card)).status, 'rekeyed');
      assert.deepEqual(
        card.log.map((apdu) => apdu[1]),
        steps.map((s) => s.ins),
      );
    });

    for (const fault of ['remove', 'drop'] as const) {
      for (const step of steps) {
        it(`chip ${fault === 'remove' ? 'removed before' : 'removed after'} ${step.name}: chip_removed, taps verify, a rerun rekeys`, async () => {
          const { server, world } = suite;
          const { id, card, first } = await writtenChip();
          card.injectFault({ kind: fault, ins: step.ins, skip: step.skip });
          const out = await rekey(server, world.sandbox.key, id, card);
          assert.equal(out.status, 'failed');
          assert.equal(out.reason!.code, 'chip_removed', JSON.stringify(out));
          // Recorded before the first ChangeKey went out: from the rekey batch on, the pending keys are known.
          const pending = (await chipOf(server, id)).pending_key_version;
          assert.equal(pending, steps.indexOf(step) >= REKEY_BATCH ? 2 : null);
          await recovers(id, card, first.counter);
        });
      }
    }

    it('a wrong answer to ChangeKey 2 (after ChangeKey 1 ran): chip_error naming it; the chip holds a mixed pair, its taps verify; a rerun rekeys', async () => {
      const { server, world } = suite;
      const { id, card, first } = await writtenChip();
      card.injectFault({ kind: 'status', ins: 0xc4, skip: 1, sw: 0x911e });
      const out = await rekey(server, world.sandbox.key, id, card);
      assert.equal(out.reason!.code, 'chip_error');
      assert.match(out.reason!.detail, /^ChangeKey 2 failed: 911E/);
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((k) => card.keyVersion(k)),
        [1, 2, 1, 1, 1],
      );
      await recovers(id, card, first.counter);
    });

    it('a read back the new keys do not verify (the chip answered another URL): readback_failed, nothing committed', async () => {
      const { server, world } = suite;
      const { id, card } = await writtenChip();
      // A SUN the chip gave under its old keys, which the writer then answers to the read back.
      const read = (hex: string) => Buffer.from(card.transmit(Buffer.from(hex, 'hex')));
      card.powerOn();
      read('00a4040007d276000085010100');
      read('00a4000c02e10400');
      const stale = read('00b0000000');
      const link = { transmit: async (apdu: Buffer) => (apdu[1] === 0xb0 ? stale : read(apdu.toString('hex'))) };
      const out = await new WriterClient(server.base, world.sandbox.key).write(id, link, () => {}, 'rekey');
      assert.equal(out.reason!.code, 'readback_failed', JSON.stringify(out));
      assert.match(out.reason!.detail, /^the SUN message chip [0-9A-F]{14} read back under its new keys does not verify: bad_picc_data$/);
      assert.deepEqual([(await chipOf(server, id)).key_version, (await chipOf(server, id)).pending_key_version], [1, 2]);
      await tapsGenuine(server, world.sandbox.key, card, id);
      assert.equal((await rekey(server, world.sandbox.key, id, card)).status, 'rekeyed');
      await tapsGenuine(server, world.sandbox.key, card, id);
    });
  });
}
