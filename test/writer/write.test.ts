import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deriveChipKeys } from '../../src/master-keys/derive.js';
import { modeMaster } from '../../src/master-keys/masters.js';
import { sealer } from '../../src/secrets/index.js';
import { isoMicros } from '../../src/time.js';
import { DATABASES, call, onlyError, sharedServer } from '../kit/harness.js';
import { createdTag, eventsOf, newCard, tamperTapsVerify, verify, writeTag } from './helpers.js';

for (const kind of DATABASES) {
  describe(`writer (${kind})`, () => {
    const suite = sharedServer(kind);

    it('writes a created tag onto a factory-blank chip: configured, chip bound, tag.configured, genuine taps, replay refused', async () => {
      const { server, world } = suite;
      const { id, url } = await createdTag(server, world.sandbox.key);
      const card = newCard();
      const out = await writeTag(server, world.sandbox.key, id, card);
      assert.equal(out.status, 'configured', JSON.stringify(out));
      assert.equal(out.reason, null);
      assert.equal(out.roundTrips, 3);
      assert.equal(card.isFactoryKeyed, false);
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((k) => card.keyVersion(k)),
        [1, 1, 1, 1, 1],
      );
      // Keys 3 and 4 are derived per UID too: no key of the application stays the factory's.
      const derived = deriveChipKeys(await modeMaster(server.ctx, 'sandbox'), card.uid.toString('hex'), 1);
      assert.deepEqual(
        card.serialize().keys.slice(3),
        [derived.appKey3, derived.appKey4].map((k) => k.toString('hex').toUpperCase()),
      );
      const tag = await call(server, 'GET', `/tags/${id}`, { key: world.sandbox.key });
      assert.equal(tag.body.data.attributes.status, 'configured');
      const stored = await server.ctx.db.kysely.selectFrom('tags').select('configured_at').where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(tag.body.data.attributes.configured_at, isoMicros(stored.configured_at!));
      assert.equal(tag.body.data.attributes.updated_at, tag.body.data.attributes.configured_at);
      const chip = await server.ctx.db.kysely.selectFrom('chips').selectAll().where('tag_id', '=', id).executeTakeFirstOrThrow();
      assert.equal(chip.uid, card.uid.toString('hex').toUpperCase());
      assert.equal(chip.key_source, 'derived');
      assert.equal(chip.key_version, 1);
      assert.deepEqual(
        (await eventsOf(server, id)).map((e) => e.type),
        ['tag.created', 'tag.configured'],
      );
      const first = card.tap();
      assert.match(first, new RegExp(`^${url.replace(/[/.]/g, '\\$&')}\\?picc_data=[0-9A-F]{32}&cmac=[0-9A-F]{16}$`));
      const ok = await verify(server, world.sandbox.key, first);
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.body.data.attributes.genuine, true);
      assert.equal(ok.body.data.attributes.tag_id, id);
      // An older URL never sent before (counter below the last accepted one) is a replay.
      const older = card.tap();
      const newer = card.tap();
      assert.equal((await verify(server, world.sandbox.key, newer)).body.data.attributes.genuine, true);
      const old = await verify(server, world.sandbox.key, older);
      assert.equal(old.body.data.attributes.genuine, false);
      assert.equal(old.body.data.attributes.reason, 'replayed');
      // Written once: a second write and a delete are refused (409).
      const again = await call(server, 'POST', '/writer/writes', { key: world.sandbox.key, body: { data: { type: 'writes', attributes: { tag_id: id } } } });
      assert.equal(again.status, 409);
      assert.equal(onlyError(again).title, 'The tag is configured and is kept');
      assert.equal((await call(server, 'DELETE', `/tags/${id}`, { key: world.sandbox.key })).status, 409);
    });

    it('writes a TagTamper tag whose url has a query: the query is kept, closed then open after tamper', async () => {
      const { server, world } = suite;
      const { id, url } = await createdTag(
        server,
        world.sandbox.key,
        'ntag_424_dna_tag_tamper',
        `https://example.com/tt/${Math.random().toString(36).slice(2)}?lot=7`,
      );
      const card = newCard('ntag_424_dna_tag_tamper');
      assert.equal((await writeTag(server, world.sandbox.key, id, card)).status, 'configured');
      await tamperTapsVerify(server, world.sandbox.key, card, url);
    });

    it('a TagTamper write reads the loop with GetTTStatus; a chip whose loop was opened is refused (tamper_open), a closed one configures', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key, 'ntag_424_dna_tag_tamper');
      const opened = newCard('ntag_424_dna_tag_tamper');
      opened.tamper('open');
      opened.tamper('closed');
      const out = await writeTag(server, world.sandbox.key, id, opened);
      assert.equal(out.status, 'failed');
      assert.deepEqual(out.reason, {
        code: 'tamper_open',
        detail: `the tamper loop of chip ${opened.uid.toString('hex').toUpperCase()} is not intact (permanent O, current C): a TagTamper chip must be closed and never opened`,
      });
      await failsOnce(id, 'tamper_open');
      const card = newCard('ntag_424_dna_tag_tamper');
      assert.equal((await writeTag(server, world.sandbox.key, id, card)).status, 'configured');
      // GetTTStatus first in the personalize batch, right after the authentication, inside the session.
      assert.deepEqual(card.log.map((apdu) => apdu[1]).slice(11, 14), [0xaf, 0xf7, 0x8d]);
    });

    async function failsOnce(tagId: string, code: string) {
      const events = await eventsOf(suite.server, tagId);
      const failed = events.filter((e) => e.type === 'tag.configuration_failed');
      assert.equal(failed.length, 1, JSON.stringify(events.map((e) => e.type)));
      assert.equal(failed[0]!.payload.reason.code, code);
      assert.equal(failed[0]!.payload.data.attributes.status, 'created');
      const tag = await suite.server.ctx.db.kysely.selectFrom('tags').select(['status', 'configured_at']).where('id', '=', tagId).executeTakeFirstOrThrow();
      assert.deepEqual(tag, { status: 'created', configured_at: null });
      assert.equal(await suite.server.ctx.db.kysely.selectFrom('chips').select('tag_id').where('tag_id', '=', tagId).executeTakeFirst(), undefined);
    }

    it('a url too long for the chip fails before any APDU, saying how many bytes fit', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key, 'ntag_424_dna', `https://example.com/${'a'.repeat(220)}`);
      const card = newCard();
      const out = await writeTag(server, world.sandbox.key, id, card);
      assert.equal(out.status, 'failed');
      assert.equal(out.reason!.code, 'url_too_long');
      assert.match(out.reason!.detail, /has room for \d+ bytes of url/);
      assert.equal(card.log.length, 0);
      await failsOnce(id, 'url_too_long');
    });

    it('an NTAG 223 DNA tag is refused with the reason', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key, 'ntag_223_dna');
      const out = await writeTag(server, world.sandbox.key, id, newCard());
      assert.equal(out.reason!.code, 'unsupported_chip');
      await failsOnce(id, 'unsupported_chip');
    });

    it('a TagTamper chip for a plain 424 tag is a protocol mismatch', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const out = await writeTag(server, world.sandbox.key, id, newCard('ntag_424_dna_tag_tamper'));
      assert.equal(out.reason!.code, 'protocol_mismatch');
      await failsOnce(id, 'protocol_mismatch');
    });

    it('a non-genuine chip is refused, then a genuine one writes the same tag', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const fake = newCard('ntag_424_dna', { originalityKey: Buffer.alloc(28, 7) });
      const out = await writeTag(server, world.sandbox.key, id, fake);
      assert.equal(out.reason!.code, 'not_genuine');
      assert.equal(fake.isFactoryKeyed, true);
      await failsOnce(id, 'not_genuine');
      assert.equal((await writeTag(server, world.sandbox.key, id, newCard())).status, 'configured');
    });

    it('production accepts NXP silicon only: the emulator signature is not genuine there', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.production.key);
      const out = await writeTag(server, world.production.key, id, newCard());
      assert.equal(out.reason!.code, 'not_genuine');
      await failsOnce(id, 'not_genuine');
    });

    it('a wrong factory key fails authentication and leaves the chip untouched', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const keys = [0, 1, 2, 3, 4].map(() => Buffer.alloc(16, 0x42));
      const card = newCard('ntag_424_dna', { keys });
      const out = await writeTag(server, world.sandbox.key, id, card);
      assert.equal(out.reason!.code, 'authentication_failed');
      assert.deepEqual(card.log.map((apdu) => apdu[1]).slice(-2), [0x71, 0xaf]);
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((k) => card.keyVersion(k)),
        [0, 0, 0, 0, 0],
      );
      await failsOnce(id, 'authentication_failed');
      assert.equal((await writeTag(server, world.sandbox.key, id, newCard())).status, 'configured');
    });

    it('a chip whose key 4 has a foreign version: authentication_failed after the probe, the chip untouched', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const card = newCard('ntag_424_dna', { keyVersions: [0, 0, 0, 0, 7] });
      const out = await writeTag(server, world.sandbox.key, id, card);
      assert.equal(out.reason!.code, 'authentication_failed');
      assert.match(out.reason!.detail, /^key 4 of chip [0-9A-F]{14} has version 7: the chip was personalized elsewhere$/);
      assert.equal(card.log.length, 11, 'the probe only');
      await failsOnce(id, 'authentication_failed');
    });

    it('a chip already written for another tag is refused (UID bound)', async () => {
      const { server, world } = suite;
      const a = await createdTag(server, world.sandbox.key);
      const b = await createdTag(server, world.sandbox.key);
      const card = newCard();
      assert.equal((await writeTag(server, world.sandbox.key, a.id, card)).status, 'configured');
      const out = await writeTag(server, world.sandbox.key, b.id, card);
      assert.equal(out.reason!.code, 'uid_bound_to_another_tag');
      assert.equal(out.reason!.detail, `chip ${card.uid.toString('hex').toUpperCase()} is already bound to tag ${a.id}`);
      await failsOnce(b.id, 'uid_bound_to_another_tag');
      // The chip still serves its own tag; a blank chip takes the refused one.
      assert.equal((await verify(server, world.sandbox.key, card.tap())).body.data.attributes.tag_id, a.id);
      assert.equal((await writeTag(server, world.sandbox.key, b.id, newCard())).status, 'configured');
    });

    it("a chip written for another team's tag is refused without naming that tag", async () => {
      const { server, world } = suite;
      const other = await server.seedTeam({ name: 'other brand' });
      const theirs = await createdTag(server, other.sandbox.key);
      const ours = await createdTag(server, world.sandbox.key);
      const card = newCard();
      assert.equal((await writeTag(server, other.sandbox.key, theirs.id, card)).status, 'configured');
      const out = await writeTag(server, world.sandbox.key, ours.id, card);
      assert.equal(out.reason!.code, 'uid_bound_to_another_tag');
      assert.equal(out.reason!.detail, `chip ${card.uid.toString('hex').toUpperCase()} is already bound to a tag of another team`);
      assert.ok(!JSON.stringify(out).includes(theirs.id));
      await failsOnce(ours.id, 'uid_bound_to_another_tag');
    });

    it('the writer gives up (abort): aborted, one tag.configuration_failed; a retry configures', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const started = await call(server, 'POST', '/writer/writes', { key: world.sandbox.key, body: { data: { type: 'writes', attributes: { tag_id: id } } } });
      const r = await call(server, 'POST', `/writer/writes/${started.body.data.id}/responses`, {
        key: world.sandbox.key,
        body: { data: { type: 'writes', attributes: { responses: [], abort: true } } },
      });
      assert.equal(r.status, 200);
      assert.equal(r.body.data.attributes.status, 'failed');
      assert.deepEqual(r.body.data.attributes.reason, { code: 'aborted', detail: 'the writer gave up the write' });
      await failsOnce(id, 'aborted');
      assert.equal((await writeTag(server, world.sandbox.key, id, newCard())).status, 'configured');
    });

    it('between round trips the EV2 session keys are sealed under the mode master, never stored plain', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const card = newCard();
      const send = (apdus: string[]) => apdus.map((hex) => Buffer.from(card.transmit(Buffer.from(hex, 'hex'))).toString('hex'));
      const started = await call(server, 'POST', '/writer/writes', { key: world.sandbox.key, body: { data: { type: 'writes', attributes: { tag_id: id } } } });
      const wid = started.body.data.id;
      const path = `/writer/writes/${wid}/responses`;
      let write = started.body.data;
      for (const step of ['auth', 'personalize']) {
        write = (
          await call(server, 'POST', path, {
            key: world.sandbox.key,
            body: { data: { type: 'writes', attributes: { responses: send(write.attributes.apdus) } } },
          })
        ).body.data;
        assert.equal(write.attributes.step, step);
      }
      const row = await server.ctx.db.kysely.selectFrom('writer_sessions').select('state').where('id', '=', wid).executeTakeFirstOrThrow();
      const state = JSON.parse(row.state);
      assert.deepEqual(Object.keys(state).sort(), ['apdus', 'sealed']);
      assert.deepEqual(state.apdus, write.attributes.apdus);
      const machine = JSON.parse(sealer(await modeMaster(server.ctx, 'sandbox'), 'writer-session').open(state.sealed));
      assert.equal(machine.step, 'personalize');
      assert.match(machine.session.encKey, /^[0-9a-f]{32}$/);
      assert.match(machine.session.macKey, /^[0-9a-f]{32}$/);
      for (const secret of [machine.session.encKey, machine.session.macKey]) assert.equal(row.state.toLowerCase().includes(secret), false);
      // Finishing clears it.
      const done = await call(server, 'POST', path, {
        key: world.sandbox.key,
        body: { data: { type: 'writes', attributes: { responses: send(write.attributes.apdus) } } },
      });
      assert.equal(done.body.data.attributes.status, 'configured');
      const ended = await server.ctx.db.kysely.selectFrom('writer_sessions').select('state').where('id', '=', wid).executeTakeFirstOrThrow();
      assert.equal(ended.state, '{}');
    });

    it('a write abandoned past its deadline fails with timeout; the next write succeeds', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const started = await call(server, 'POST', '/writer/writes', { key: world.sandbox.key, body: { data: { type: 'writes', attributes: { tag_id: id } } } });
      assert.equal(started.status, 201);
      assert.equal(started.body.data.attributes.status, 'running');
      assert.equal(started.body.data.attributes.apdus.length, 11);
      // A second start while it runs: 409.
      const second = await call(server, 'POST', '/writer/writes', { key: world.sandbox.key, body: { data: { type: 'writes', attributes: { tag_id: id } } } });
      assert.equal(second.status, 409);
      assert.equal(onlyError(second).title, 'A write of this tag is already running');
      await server.ctx.db.kysely.updateTable('writer_sessions').set({ expires_at: 0 }).where('id', '=', started.body.data.id).execute();
      const late = await call(server, 'POST', `/writer/writes/${started.body.data.id}/responses`, {
        key: world.sandbox.key,
        body: { data: { type: 'writes', attributes: { responses: [] } } },
      });
      assert.equal(late.status, 200);
      assert.equal(late.body.data.attributes.status, 'failed');
      assert.equal(late.body.data.attributes.reason.code, 'timeout');
      assert.deepEqual(late.body.data.attributes.apdus, []);
      await failsOnce(id, 'timeout');
      const ended = await call(server, 'POST', `/writer/writes/${started.body.data.id}/responses`, {
        key: world.sandbox.key,
        body: { data: { type: 'writes', attributes: { responses: [] } } },
      });
      assert.equal(ended.status, 409);
      assert.equal((await writeTag(server, world.sandbox.key, id, newCard())).status, 'configured');
    });

    it('an abandoned write is expired by the next start (timeout, one event), which then runs', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const started = await call(server, 'POST', '/writer/writes', { key: world.sandbox.key, body: { data: { type: 'writes', attributes: { tag_id: id } } } });
      await server.ctx.db.kysely.updateTable('writer_sessions').set({ expires_at: 0 }).where('id', '=', started.body.data.id).execute();
      const card = newCard();
      assert.equal((await writeTag(server, world.sandbox.key, id, card)).status, 'configured');
      const types = (await eventsOf(server, id)).map((e) => e.type);
      assert.deepEqual(types, ['tag.created', 'tag.configuration_failed', 'tag.configured']);
    });

    it('a tag deleted during the write fails the write (tag_deleted) without an event for a gone tag', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const started = await call(server, 'POST', '/writer/writes', { key: world.sandbox.key, body: { data: { type: 'writes', attributes: { tag_id: id } } } });
      assert.equal((await call(server, 'DELETE', `/tags/${id}`, { key: world.sandbox.key })).status, 204);
      const r = await call(server, 'POST', `/writer/writes/${started.body.data.id}/responses`, {
        key: world.sandbox.key,
        body: { data: { type: 'writes', attributes: { responses: [] } } },
      });
      assert.equal(r.body.data.attributes.reason.code, 'tag_deleted');
    });

    it('two writers racing for one tag: exactly one runs, the other gets 409', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const body = { data: { type: 'writes', attributes: { tag_id: id } } };
      const both = await Promise.all([0, 1].map(() => call(server, 'POST', '/writer/writes', { key: world.sandbox.key, body })));
      assert.deepEqual(both.map((r) => r.status).sort(), [201, 409]);
      const running = await server.ctx.db.kysely.selectFrom('writer_sessions').select('id').where('tag_id', '=', id).where('result', 'is', null).execute();
      assert.equal(running.length, 1);
      // Two full writes with two cards at once: one configures, the other is refused.
      const { id: other } = await createdTag(server, world.sandbox.key);
      const outs = await Promise.all([newCard(), newCard()].map((card) => writeTag(server, world.sandbox.key, other, card)));
      assert.equal(outs.filter((o) => o.status === 'configured').length, 1, JSON.stringify(outs));
      // The loser was refused before any APDU: its chip is untouched, and no failure is recorded for the tag.
      const loser = outs.find((o) => o.status !== 'configured')!;
      assert.equal(loser.refused?.status, 409, JSON.stringify(loser));
      assert.deepEqual(
        (await eventsOf(server, other)).map((e) => e.type),
        ['tag.created', 'tag.configured'],
      );
      const tag = await call(server, 'GET', `/tags/${other}`, { key: world.sandbox.key });
      assert.equal(tag.body.data.attributes.status, 'configured');
      assert.equal((await eventsOf(server, other)).filter((e) => e.type === 'tag.configured').length, 1);
    });

    it('the same round trip answered twice: the second gets 409 WriteEnded', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      const card = newCard();
      const started = await call(server, 'POST', '/writer/writes', { key: world.sandbox.key, body: { data: { type: 'writes', attributes: { tag_id: id } } } });
      const responses = (started.body.data.attributes.apdus as string[]).map((hex) => Buffer.from(card.transmit(Buffer.from(hex, 'hex'))).toString('hex'));
      const path = `/writer/writes/${started.body.data.id}/responses`;
      const body = { data: { type: 'writes', attributes: { responses, round_trip: 0 } } };
      const both = await Promise.all([0, 1].map(() => call(server, 'POST', path, { key: world.sandbox.key, body })));
      assert.deepEqual(both.map((r) => r.status).sort(), [200, 409]);
    });
  });
}
