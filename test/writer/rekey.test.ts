// Rekeying a configured tag's chip through the writer: the server authenticates with the chip's keys,
// changes keys 1 to 4 and then 0 to keys of a higher version, reads a SUN back under them and commits; the
// chip keeps its counter and the tag stays configured. AES, LRP and TagTamper chips, imported chips
// (with and without their key 0), the refusals, and the opt-in tag.rekeyed event.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ntag424Card } from '../../src/chips/index.js';
import { deriveChipKeys, teamMetaReadKey } from '../../src/master-keys/derive.js';
import { modeMaster } from '../../src/master-keys/masters.js';
import { importChips } from '../../src/tag-chips/import.js';
import { DATABASES, call, onlyError, sharedServer } from '../kit/harness.js';
import { chipOf, createdTag, eventsOf, newCard, rekey, tamperTapsVerify, tapsGenuine, verify, writeTag } from './helpers.js';
import { cliActor } from '../../src/audit/record.js';

const startBody = (attributes: Record<string, unknown>) => ({ data: { type: 'writes', attributes } });

for (const kind of DATABASES) {
  describe(`writer rekey (${kind})`, () => {
    const suite = sharedServer(kind);

    it('rekeys a written chip: keys 1 to 4, then 0, at version 2, a SUN read back, committed; the counter goes on, the tag stays configured', async () => {
      const { server, world } = suite;
      const key = world.sandbox.key;
      const { id } = await createdTag(server, key);
      const card = newCard();
      assert.equal((await writeTag(server, key, id, card)).status, 'configured');
      const before = await tapsGenuine(server, key, card, id);
      const older = card.tap();
      card.log.length = 0;
      const out = await rekey(server, key, id, card);
      assert.deepEqual({ ...out, writeId: null }, { writeId: null, tagId: id, status: 'rekeyed', reason: null, roundTrips: 3 });
      // probe 11, AuthenticateEV2First part 2, ChangeKey 1, 2, 3, 4, 0, then the read back: select, select, read.
      assert.deepEqual(
        card.log.map((apdu) => apdu[1]),
        [0xa4, 0x60, 0xaf, 0xaf, 0x3c, 0x64, 0x64, 0x64, 0x64, 0x64, 0x71, 0xaf, 0xc4, 0xc4, 0xc4, 0xc4, 0xc4, 0xa4, 0xa4, 0xb0],
      );
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((k) => card.keyVersion(k)),
        [2, 2, 2, 2, 2],
      );
      assert.deepEqual(await chipOf(server, id), {
        key_version: 2,
        key_source: 'derived',
        pending_key_version: null,
        last_counter: before.counter,
        write_generation: 1,
        app_master_key_sealed: null,
        sdm_file_read_key_sealed: null,
      });
      const write = await call(server, 'GET', `/writer/writes/${out.writeId}`, { key });
      assert.equal(write.status, 200);
      assert.deepEqual(
        [write.body.data.attributes.operation, write.body.data.attributes.status, write.body.data.attributes.step, write.body.data.attributes.round_trips],
        ['rekey', 'rekeyed', 'rekeyed', 3],
      );
      // The read back took one count; the next tap is above it, under the new keys.
      const after = await tapsGenuine(server, key, card, id);
      assert.equal(after.counter, before.counter + 3);
      // A URL the chip made under its old keys (never sent) no longer verifies: its PICCData was encrypted with the old meta read key.
      assert.equal((await verify(server, key, older)).body.data.attributes.reason, 'bad_picc_data');
      const tag = await call(server, 'GET', `/tags/${id}`, { key });
      assert.equal(tag.body.data.attributes.status, 'configured');
      assert.deepEqual(
        (await eventsOf(server, id)).map((e) => e.type),
        ['tag.created', 'tag.configured', 'tag.rekeyed'],
      );
      // Again: version 3.
      assert.equal((await rekey(server, key, id, card)).status, 'rekeyed');
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((k) => card.keyVersion(k)),
        [3, 3, 3, 3, 3],
      );
      assert.equal((await chipOf(server, id)).key_version, 3);
      await tapsGenuine(server, key, card, id);
    });

    it('a chip personalized while keys 3 and 4 stayed factory (version 0): the rekey changes them from the factory key', async () => {
      const { server, world } = suite;
      const key = world.sandbox.key;
      const { id } = await createdTag(server, key);
      const written = newCard();
      assert.equal((await writeTag(server, key, id, written)).status, 'configured');
      // The same chip as a personalization that changed keys 1, 2 and 0 only left it.
      const state = written.serialize();
      const card = Ntag424Card.deserialize({
        ...state,
        keys: state.keys.map((k, i) => (i >= 3 ? '00'.repeat(16) : k)),
        keyVersions: [1, 1, 1, 0, 0],
      });
      await tapsGenuine(server, key, card, id);
      card.log.length = 0;
      assert.equal((await rekey(server, key, id, card)).status, 'rekeyed');
      assert.equal(card.log.filter((apdu) => apdu[1] === 0xc4).length, 5);
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((k) => card.keyVersion(k)),
        [2, 2, 2, 2, 2],
      );
      const derived = deriveChipKeys(await modeMaster(server.ctx, 'sandbox'), card.uid.toString('hex'), 2);
      assert.deepEqual(
        card.serialize().keys.slice(3),
        [derived.appKey3, derived.appKey4].map((k) => k.toString('hex').toUpperCase()),
      );
      await tapsGenuine(server, key, card, id);
    });

    it('an LRP chip and a TagTamper chip are rekeyed in their mode; their taps verify after', async () => {
      const { server, world } = suite;
      const key = world.sandbox.key;
      const lrp = await createdTag(server, key);
      const lrpCard = newCard('ntag_424_dna', { lrp: true });
      assert.equal((await writeTag(server, key, lrp.id, lrpCard)).status, 'configured');
      const out = await rekey(server, key, lrp.id, lrpCard);
      assert.equal(out.status, 'rekeyed', JSON.stringify(out));
      assert.equal(out.roundTrips, 4);
      await tapsGenuine(server, key, lrpCard, lrp.id);
      const tt = await createdTag(server, key, 'ntag_424_dna_tag_tamper', `https://example.com/tt/${kind}/${Math.random().toString(36).slice(2)}?lot=3`);
      const ttCard = newCard('ntag_424_dna_tag_tamper');
      assert.equal((await writeTag(server, key, tt.id, ttCard)).status, 'configured');
      assert.equal((await rekey(server, key, tt.id, ttCard)).status, 'rekeyed');
      await tamperTapsVerify(server, key, ttCard, tt.url);
    });

    it('an imported chip is rekeyed with the key 0 its import carried; one imported without it is refused before any APDU', async () => {
      const { server, world } = suite;
      // A chip written for a tag of one team, then imported by another team with the keys it holds.
      const { id: source, url } = await createdTag(server, world.sandbox.key);
      const card = newCard();
      assert.equal((await writeTag(server, world.sandbox.key, source, card)).status, 'configured');
      const uid = card.uid.toString('hex').toUpperCase();
      const master = await modeMaster(server.ctx, 'sandbox');
      const keys = deriveChipKeys(master, uid, 1);
      const entry = {
        url,
        protocol: 'ntag_424_dna',
        uid,
        sdm_meta_read_key: teamMetaReadKey(master, world.teamId, 1).toString('hex'),
        sdm_file_read_key: keys.sdmFileReadKey.toString('hex'),
      };
      const withKey = await server.seedTeam({ name: 'importer' });
      const [imported] = await importChips(server.ctx, { teamId: withKey.teamId, mode: 'sandbox', actor: cliActor() }, [
        { ...entry, app_master_key: keys.appMasterKey.toString('hex') },
      ]);
      const without = await server.seedTeam({ name: 'importer without key 0' });
      const [bare] = await importChips(server.ctx, { teamId: without.teamId, mode: 'sandbox', actor: cliActor() }, [entry]);
      await tapsGenuine(server, withKey.sandbox.key, card, imported!);

      card.log.length = 0;
      const refused = await rekey(server, without.sandbox.key, bare!, card);
      assert.equal(refused.status, 'failed');
      assert.deepEqual(refused.reason, {
        code: 'app_key_unknown',
        detail: "the server does not hold the chip's application key 0 (imported without app_master_key): it cannot be rekeyed",
      });
      assert.equal(card.log.length, 0);
      assert.deepEqual(
        (await eventsOf(server, bare!)).map((e) => e.type),
        ['tag.created', 'tag.configured'],
      );

      const row = await chipOf(server, imported!);
      assert.equal(row.key_source, 'imported');
      assert.notEqual(row.app_master_key_sealed, null);
      assert.equal(row.app_master_key_sealed!.includes(keys.appMasterKey.toString('hex')), false);
      card.log.length = 0;
      const out = await rekey(server, withKey.sandbox.key, imported!, card);
      assert.equal(out.status, 'rekeyed', JSON.stringify(out));
      // Its keys 3 and 4 (version 1 here) are not known to the importer: left as they are, keys 1, 2 and 0 changed.
      assert.equal(card.log.filter((apdu) => apdu[1] === 0xc4).length, 3);
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((k) => card.keyVersion(k)),
        [2, 2, 2, 1, 1],
      );
      assert.deepEqual(await chipOf(server, imported!), {
        ...row,
        key_version: 2,
        key_source: 'derived',
        app_master_key_sealed: null,
        sdm_file_read_key_sealed: null,
        last_counter: row.last_counter === null ? 1 : row.last_counter,
      });
      await tapsGenuine(server, withKey.sandbox.key, card, imported!);
    });

    it('refusals: a created tag is 409, a wrong or unknown operation 400, another chip wrong_chip; none changes a chip', async () => {
      const { server, world } = suite;
      const key = world.sandbox.key;
      const created = await createdTag(server, key);
      const r = await call(server, 'POST', '/writer/writes', { key, body: startBody({ tag_id: created.id, operation: 'rekey' }) });
      assert.equal(r.status, 409);
      assert.equal(onlyError(r).title, 'The tag is not configured: only the chip of a configured tag can be rekeyed');
      for (const operation of [5, 'reset', null, ['rekey']]) {
        const bad = await call(server, 'POST', '/writer/writes', { key, body: startBody({ tag_id: created.id, operation }) });
        assert.equal(bad.status, 400, JSON.stringify(operation));
      }
      // Explicit personalize is the default's behaviour.
      const explicit = await call(server, 'POST', '/writer/writes', { key, body: startBody({ tag_id: created.id, operation: 'personalize' }) });
      assert.equal(explicit.status, 201);
      assert.equal(explicit.body.data.attributes.operation, 'personalize');
      assert.equal(
        await server.ctx.db.kysely
          .selectFrom('writer_sessions')
          .select('id')
          .where('tag_id', '=', created.id)
          .where('operation', '=', 'rekey')
          .executeTakeFirst(),
        undefined,
      );

      const { id } = await createdTag(server, key);
      const card = newCard();
      assert.equal((await writeTag(server, key, id, card)).status, 'configured');
      const stranger = newCard();
      const out = await rekey(server, key, id, stranger);
      assert.equal(out.reason!.code, 'wrong_chip');
      assert.equal(
        out.reason!.detail,
        `the chip in the reader is ${stranger.uid.toString('hex').toUpperCase()}; the tag's chip is ${card.uid.toString('hex').toUpperCase()}`,
      );
      assert.deepEqual(
        (await eventsOf(server, id)).map((e) => e.type),
        ['tag.created', 'tag.configured'],
      );
      assert.equal((await chipOf(server, id)).pending_key_version, null);
      // A rekey running: a second one (or a personalization) is 409.
      const running = await call(server, 'POST', '/writer/writes', { key, body: startBody({ tag_id: id, operation: 'rekey' }) });
      assert.equal(running.status, 201);
      assert.equal(running.body.data.attributes.operation, 'rekey');
      assert.equal(
        onlyError(await call(server, 'POST', '/writer/writes', { key, body: startBody({ tag_id: id, operation: 'rekey' }) })).title,
        'A write of this tag is already running',
      );
    });

    it('tag.rekeyed is opt-in: delivered to a webhook that lists it, not to one with the default events', async () => {
      const { server } = suite;
      const w = await server.seedTeam({ name: 'hooks' });
      const hook = async (events?: string[]) => {
        const attributes = { url: 'https://hooks.example.com/in', ...(events ? { events } : {}) };
        const r = await call(server, 'POST', '/webhooks', { key: w.sandbox.key, body: { data: { type: 'webhooks', attributes } } });
        assert.equal(r.status, 201, r.text);
        assert.equal(r.body.data.attributes.events.includes('tag.rekeyed'), events !== undefined);
        return r.body.data.id as string;
      };
      const listing = await hook(['tag.rekeyed']);
      const plain = await hook();
      const { id } = await createdTag(server, w.sandbox.key);
      const card = newCard();
      assert.equal((await writeTag(server, w.sandbox.key, id, card)).status, 'configured');
      const out = await rekey(server, w.sandbox.key, id, card);
      const [event] = (await eventsOf(server, id)).filter((e) => e.type === 'tag.rekeyed');
      assert.deepEqual(Object.keys(event!.payload).sort(), ['data', 'timestamp', 'type', 'write_id']);
      assert.equal(event!.payload.write_id, out.writeId);
      assert.equal(event!.payload.data.id, id);
      assert.equal(event!.payload.data.attributes.status, 'configured');
      const deliveries = await server.ctx.db.kysely
        .selectFrom('deliveries')
        .innerJoin('events', 'events.id', 'deliveries.event_id')
        .select(['deliveries.webhook_id', 'events.type'])
        .where('events.tag_id', '=', id)
        .orderBy('events.created_at')
        .execute();
      assert.deepEqual(
        deliveries.map((d) => [d.webhook_id, d.type]).sort(),
        [
          [plain, 'tag.configured'],
          [plain, 'tag.created'],
          [listing, 'tag.rekeyed'],
        ].sort(),
      );
    });
  });
}
