// Writing chips switched to LRP (SetConfiguration option 05): the server tells the mode from the
// chip's PERMISSION_DENIED to AuthenticateEV2First, authenticates with AuthenticateLRPFirst, drives
// the write in LRP secure messaging, lays out the longer LRP PICCData and records the chip as lrp, so
// its taps verify with LRP. Faults in the LRP authentication end in chip_removed and a retry configures.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modeMaster } from '../../src/master-keys/masters.js';
import { ndefUrlCapacity } from '../../src/chips/index.js';
import { sealer } from '../../src/secrets/index.js';
import { saveCard } from '../../src/writer/cards.js';
import { WriterClient } from '../../src/writer/relay.js';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { cardLink, cli, createdTag, eventsOf, newCard, tamperTapsVerify, verify, writeTag } from './helpers.js';

// The commands of a write onto a blank LRP 424: the probe (its AuthenticateEV2First answered
// PERMISSION_DENIED), AuthenticateLRPFirst part 1, part 2, then the personalize batch.
const LRP_WRITE = [0xa4, 0x60, 0xaf, 0xaf, 0x3c, 0x64, 0x64, 0x64, 0x64, 0x64, 0x71, 0x71, 0xaf, 0x8d, 0x5f, 0xc4, 0xc4, 0xc4, 0xc4, 0xc4];

const lrpCard = (protocol: 'ntag_424_dna' | 'ntag_424_dna_tag_tamper' = 'ntag_424_dna') => newCard(protocol, { lrp: true });

for (const kind of DATABASES) {
  describe(`writer, LRP chips (${kind})`, () => {
    const suite = sharedServer(kind);

    async function failsOnce(tagId: string, code: string) {
      const events = await eventsOf(suite.server, tagId);
      assert.deepEqual(
        events.map((e) => e.type),
        ['tag.created', 'tag.configuration_failed'],
      );
      assert.equal(events[1]!.payload.reason.code, code);
      assert.equal(await suite.server.ctx.db.kysely.selectFrom('chips').select('tag_id').where('tag_id', '=', tagId).executeTakeFirst(), undefined);
    }

    it('`tapproof writer` over HTTP writes an LRP chip: mode told by the chip, chip row lrp, `emulator tap` genuine, an older URL replayed', async () => {
      const { server, world } = suite;
      const { id, url } = await createdTag(server, world.sandbox.key);
      // The emulated card of this tag, switched to LRP before the writer first sees it.
      saveCard(server.storage.env.TAPPROOF_DATA_DIR!, id, lrpCard());
      const written = await cli(server, ['writer', '--key', world.sandbox.key, '--server', server.base, '--json', id]);
      assert.equal(written.code, 0, written.stderr + written.stdout);
      const out = JSON.parse(written.stdout.trim().split('\n')[0]!);
      assert.equal(out.status, 'configured', written.stdout);
      assert.equal(out.roundTrips, 4, written.stdout);
      const chip = await server.ctx.db.kysely.selectFrom('chips').selectAll().where('tag_id', '=', id).executeTakeFirstOrThrow();
      assert.deepEqual([chip.crypto, chip.key_source, chip.key_version], ['lrp', 'derived', 1]);
      assert.deepEqual(
        (await eventsOf(server, id)).map((e) => e.type),
        ['tag.created', 'tag.configured'],
      );
      const tap = async (): Promise<{ url: string; counter: number }> => {
        const r = await cli(server, ['emulator', 'tap', id, '--json']);
        assert.equal(r.code, 0, r.stderr);
        return JSON.parse(r.stdout);
      };
      const first = await tap();
      // LRP PICCData: PICCRand (8 bytes) || encrypted PICCData (16 bytes), 48 hex characters.
      assert.match(first.url, new RegExp(`^${url.replace(/[/.]/g, '\\$&')}\\?picc_data=[0-9A-F]{48}&cmac=[0-9A-F]{16}$`));
      const ok = await verify(server, world.sandbox.key, first.url);
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.body.data.attributes.genuine, true, ok.text);
      assert.equal(ok.body.data.attributes.tag_id, id);
      const older = await tap();
      const newer = await tap();
      assert.deepEqual([older.counter, newer.counter], [first.counter + 1, first.counter + 2]);
      assert.equal((await verify(server, world.sandbox.key, newer.url)).body.data.attributes.genuine, true);
      const replay = await verify(server, world.sandbox.key, older.url);
      assert.equal(replay.body.data.attributes.genuine, false);
      assert.equal(replay.body.data.attributes.reason, 'replayed');
    });

    it('`tapproof emulator create --crypto lrp` writes an LRP software card through the writer: lrp chip row, taps genuine', async () => {
      const { server, world } = suite;
      const url = `https://example.com/e/${Math.random().toString(36).slice(2)}`;
      const created = await cli(server, [
        'emulator',
        'create',
        '--team',
        world.teamId,
        '--url',
        url,
        '--protocol',
        'ntag_424_dna',
        '--crypto',
        'lrp',
        '--json',
      ]);
      assert.equal(created.code, 0, created.stderr);
      const { id } = JSON.parse(created.stdout);
      const chip = await server.ctx.db.kysely.selectFrom('chips').select(['crypto', 'key_source']).where('tag_id', '=', id).executeTakeFirstOrThrow();
      assert.deepEqual(chip, { crypto: 'lrp', key_source: 'derived' });
      assert.deepEqual(
        (await eventsOf(server, id)).map((e) => e.type),
        ['tag.created', 'tag.configured'],
      );
      const tapped = await cli(server, ['emulator', 'tap', id, '--json']);
      assert.equal(tapped.code, 0, tapped.stderr);
      const { url: scanned } = JSON.parse(tapped.stdout);
      assert.match(scanned, /\?picc_data=[0-9A-F]{48}&cmac=[0-9A-F]{16}$/);
      const r = await verify(server, world.sandbox.key, scanned);
      assert.equal(r.body.data.attributes.genuine, true, r.text);
      assert.equal(r.body.data.attributes.tag_id, id);
    });

    it('the steps of an LRP write: probe, lrp_probe, auth, personalize; the LRP session is sealed between round trips', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const card = lrpCard();
      const steps: string[] = [];
      const sealedKinds: string[] = [];
      const box = sealer(await modeMaster(server.ctx, 'sandbox'), 'writer-session');
      const link = cardLink(card);
      const out = await new WriterClient(server.base, world.sandbox.key).write(
        id,
        {
          // Before the first command of each batch, the step machine's sealed state as stored.
          transmit: async (apdu) => {
            if (steps.length > sealedKinds.length) {
              const row = await server.ctx.db.kysely
                .selectFrom('writer_sessions')
                .select('state')
                .where('tag_id', '=', id)
                .where('result', 'is', null)
                .executeTakeFirstOrThrow();
              const machine = JSON.parse(box.open(JSON.parse(row.state).sealed));
              sealedKinds.push(machine.session?.kind ?? machine.crypto ?? '-');
              if (machine.session) assert.equal(row.state.toLowerCase().includes(machine.session.master), false, 'the LRP master is never stored plain');
            }
            return link.transmit(apdu);
          },
        },
        (step) => steps.push(step),
      );
      assert.equal(out.status, 'configured', JSON.stringify(out));
      assert.equal(out.roundTrips, 4);
      assert.deepEqual(steps, ['probe', 'lrp_probe', 'auth', 'personalize']);
      assert.deepEqual(sealedKinds, ['-', '-', 'lrp', 'lrp']);
      assert.deepEqual(
        card.log.map((apdu) => apdu[1]),
        LRP_WRITE,
      );
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((k) => card.keyVersion(k)),
        [1, 1, 1, 1, 1],
      );
      assert.equal(card.lrp, true);
      assert.equal((await verify(server, world.sandbox.key, card.tap())).body.data.attributes.genuine, true);
    });

    it('an LRP TagTamper chip whose url has a query: GetTTStatus in the LRP session, then taps closed, and open after tamper', async () => {
      const { server, world } = suite;
      const { id, url } = await createdTag(
        server,
        world.sandbox.key,
        'ntag_424_dna_tag_tamper',
        `https://example.com/tt/${Math.random().toString(36).slice(2)}?lot=7`,
      );
      const card = lrpCard('ntag_424_dna_tag_tamper');
      assert.equal((await writeTag(server, world.sandbox.key, id, card)).status, 'configured');
      assert.deepEqual(card.log.map((apdu) => apdu[1]).slice(11, 15), [0x71, 0xaf, 0xf7, 0x8d]);
      const chip = await server.ctx.db.kysely.selectFrom('chips').select('crypto').where('tag_id', '=', id).executeTakeFirstOrThrow();
      assert.equal(chip.crypto, 'lrp');
      await tamperTapsVerify(server, world.sandbox.key, card, url);
    });

    // The LRP authentication's two commands and the last key change, by INS and rank in LRP_WRITE.
    const cuts: { kind: 'remove' | 'drop'; ins: number; skip: number; name: string }[] = [
      { kind: 'remove', ins: 0x71, skip: 1, name: 'removed before AuthenticateLRPFirst part 1' },
      { kind: 'drop', ins: 0x71, skip: 1, name: 'removed after AuthenticateLRPFirst part 1' },
      { kind: 'remove', ins: 0xaf, skip: 2, name: 'removed before AuthenticateLRPFirst part 2' },
      { kind: 'drop', ins: 0xaf, skip: 2, name: 'removed after AuthenticateLRPFirst part 2' },
      { kind: 'drop', ins: 0xc4, skip: 4, name: 'removed after ChangeKey 0 (the retry authenticates in LRP with the derived key)' },
    ];
    for (const cut of cuts) {
      it(`LRP chip ${cut.name}: chip_removed, then a retry configures and taps verify`, async () => {
        const { server, world } = suite;
        const { id } = await createdTag(server, world.sandbox.key);
        const card = lrpCard();
        card.injectFault({ kind: cut.kind, ins: cut.ins, skip: cut.skip });
        const out = await writeTag(server, world.sandbox.key, id, card);
        assert.equal(out.status, 'failed');
        assert.equal(out.reason!.code, 'chip_removed', JSON.stringify(out));
        await failsOnce(id, 'chip_removed');
        card.powerOn();
        const retry = await writeTag(server, world.sandbox.key, id, card);
        assert.equal(retry.status, 'configured', JSON.stringify(retry));
        assert.deepEqual(
          (await eventsOf(server, id)).map((e) => e.type),
          ['tag.created', 'tag.configuration_failed', 'tag.configured'],
        );
        const chip = await server.ctx.db.kysely.selectFrom('chips').select('crypto').where('tag_id', '=', id).executeTakeFirstOrThrow();
        assert.equal(chip.crypto, 'lrp');
        const scan = await verify(server, world.sandbox.key, card.tap());
        assert.equal(scan.body.data.attributes.genuine, true, scan.text);
      });
    }

    it('an LRP chip with a foreign key 0: authentication_failed, the chip untouched; a blank LRP chip then configures', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const card = newCard('ntag_424_dna', { lrp: true, keys: [0, 1, 2, 3, 4].map(() => Buffer.alloc(16, 0x42)) });
      const out = await writeTag(server, world.sandbox.key, id, card);
      assert.equal(out.status, 'failed');
      assert.deepEqual(out.reason, { code: 'authentication_failed', detail: 'the chip refused the factory key 0 (LRP): 91AE AUTHENTICATION_ERROR' });
      assert.deepEqual(card.log.map((apdu) => apdu[1]).slice(-3), [0x71, 0x71, 0xaf]);
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((k) => card.keyVersion(k)),
        [0, 0, 0, 0, 0],
      );
      await failsOnce(id, 'authentication_failed');
      assert.equal((await writeTag(server, world.sandbox.key, id, lrpCard())).status, 'configured');
    });

    it('a url that fits an AES chip but not the longer LRP PICCData: url_too_long once the chip shows LRP', async () => {
      const { server, world } = suite;
      const base = 'https://example.com/';
      const url = base + 'a'.repeat(ndefUrlCapacity('ntag_424_dna', base, 'lrp') + 1 - base.length);
      assert.ok(url.length <= ndefUrlCapacity('ntag_424_dna', url, 'aes'));
      const { id } = await createdTag(server, world.sandbox.key, 'ntag_424_dna', url);
      const card = lrpCard();
      const out = await writeTag(server, world.sandbox.key, id, card);
      assert.equal(out.status, 'failed');
      assert.equal(out.reason!.code, 'url_too_long');
      assert.match(
        out.reason!.detail,
        new RegExp(
          `^chip ${card.uid.toString('hex').toUpperCase()} is in LRP mode: url is ${url.length} bytes but an NTAG 424 DNA has room for ${url.length - 1} bytes of url`,
        ),
      );
      assert.equal(card.log.length, 11, 'nothing written: the probe only');
      await failsOnce(id, 'url_too_long');
      // The same url on an AES chip fits.
      assert.equal((await writeTag(server, world.sandbox.key, id, newCard())).status, 'configured');
    });
  });
}
