// The chip removed after every single command of a write (a test per command), a wrong status and
// a torn write: each ends in one tag.configuration_failed, no half-configured tag, and a retry with
// the same chip succeeds (keys are changed last; versions say which keys are already ours).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { PROBE_AND_AUTH, commandSteps } from './commands.js';
import { createdTag, eventsOf, newCard, verify, writeTag } from './helpers.js';

for (const kind of DATABASES) {
  describe(`writer faults (${kind})`, () => {
    const suite = sharedServer(kind);
    // The 19 commands of a write onto a blank 424 (probe 11, auth 1, personalize 7), by INS and rank.
    const NAMES: [number, string][] = [
      ...PROBE_AND_AUTH,
      [0x8d, 'WriteData'],
      [0x5f, 'ChangeFileSettings'],
      [0xc4, 'ChangeKey 1'],
      [0xc4, 'ChangeKey 2'],
      [0xc4, 'ChangeKey 3'],
      [0xc4, 'ChangeKey 4'],
      [0xc4, 'ChangeKey 0'],
    ];
    const steps = commandSteps(NAMES);

    it('a clean write sends exactly these commands', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const card = newCard();
      assert.equal((await writeTag(server, world.sandbox.key, id, card)).status, 'configured');
      assert.deepEqual(
        card.log.map((apdu) => apdu[1]),
        steps.map((s) => s.ins),
      );
    });

    for (const kind of ['remove', 'drop'] as const) {
      for (const step of steps) {
        it(`chip ${kind === 'remove' ? 'removed before' : 'removed after'} ${step.name}: chip_removed, then a retry configures`, async () => {
          const { server, world } = suite;
          const { id } = await createdTag(server, world.sandbox.key);
          const card = newCard();
          card.injectFault({ kind, ins: step.ins, skip: step.skip });
          const out = await writeTag(server, world.sandbox.key, id, card);
          assert.equal(out.status, 'failed');
          assert.equal(out.reason!.code, 'chip_removed', JSON.stringify(out));
          const events = await eventsOf(server, id);
          assert.deepEqual(
            events.map((e) => e.type),
            ['tag.created', 'tag.configuration_failed'],
          );
          assert.equal(events[1]!.payload.reason.code, 'chip_removed');
          const chip = await server.ctx.db.kysely.selectFrom('chips').select('tag_id').where('tag_id', '=', id).executeTakeFirst();
          assert.equal(chip, undefined);
          card.powerOn();
          const retry = await writeTag(server, world.sandbox.key, id, card);
          assert.equal(retry.status, 'configured', JSON.stringify(retry));
          assert.deepEqual(
            (await eventsOf(server, id)).map((e) => e.type),
            ['tag.created', 'tag.configuration_failed', 'tag.configured'],
          );
          const scan = await verify(server, world.sandbox.key, card.tap());
          assert.equal(scan.body.data.attributes.genuine, true, scan.text);
        });
      }
    }

    it('a wrong status from ChangeFileSettings: chip_error naming the command; a retry configures', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const card = newCard();
      card.injectFault({ kind: 'status', ins: 0x5f, sw: 0x919e });
      const out = await writeTag(server, world.sandbox.key, id, card);
      assert.equal(out.reason!.code, 'chip_error');
      assert.match(out.reason!.detail, /^ChangeFileSettings failed: 919E/);
      assert.equal((await eventsOf(server, id)).filter((e) => e.type === 'tag.configuration_failed').length, 1);
      card.powerOn();
      assert.equal((await writeTag(server, world.sandbox.key, id, card)).status, 'configured');
    });

    it('a torn WriteData: chip_removed; the retry rewrites the whole file', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const card = newCard();
      card.injectFault({ kind: 'tear', ins: 0x8d });
      assert.equal((await writeTag(server, world.sandbox.key, id, card)).reason!.code, 'chip_removed');
      card.powerOn();
      assert.equal((await writeTag(server, world.sandbox.key, id, card)).status, 'configured');
      assert.equal((await verify(server, world.sandbox.key, card.tap())).body.data.attributes.genuine, true);
    });
  });
}
