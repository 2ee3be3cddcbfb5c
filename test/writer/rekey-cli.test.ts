// `tapproof writer --rekey` as its own process over HTTP: onto the emulated card in the data dir, and
// through the real PC/SC stack (pcscd + vsmartcard vpcd), including a chip taken out of the reader in the
// middle of the rekey and presented again. Taps verify before, between and after.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ntag424Card } from '../../src/chips/index.js';
import { saveCard } from '../../src/writer/cards.js';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { chipOf, cli, createdTag, eventsOf, pcscSkip, tapsGenuine, verify, vpcdReader, withVpcdCard } from './helpers.js';

const VPCD_PORT = Number(process.env.TAPPROOF_TEST_REKEY_VPCD_PORT ?? 35963);
const READER = vpcdReader(VPCD_PORT);

for (const kind of DATABASES) {
  describe(`tapproof writer --rekey (${kind})`, () => {
    const suite = sharedServer(kind);
    const writer = (...args: string[]) => cli(suite.server, ['writer', '--key', suite.world.sandbox.key, '--server', suite.server.base, ...args]);
    const tap = async (tagId: string): Promise<{ url: string; counter: number }> => {
      const r = await cli(suite.server, ['emulator', 'tap', tagId, '--json']);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout);
    };

    it('rekeys the emulated card of a written tag: one line, the counter goes on, `emulator tap` genuine under the new keys', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      assert.equal((await writer(id)).code, 0);
      const before = await tap(id);
      assert.equal((await verify(server, world.sandbox.key, before.url)).body.data.attributes.genuine, true);
      const r = await writer('--rekey', id);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${id}: rekeyed (3 round trips)\n1 of 1 tag rekeyed\n`);
      assert.equal((await chipOf(server, id)).key_version, 2);
      const after = await tap(id);
      // The read back took one count.
      assert.equal(after.counter, before.counter + 2);
      const scan = await verify(server, world.sandbox.key, after.url);
      assert.equal(scan.body.data.attributes.genuine, true, scan.text);
      const json = await writer('--rekey', '--json', id);
      assert.equal(json.code, 0, json.stderr);
      assert.deepEqual({ ...JSON.parse(json.stdout), writeId: null }, { writeId: null, tagId: id, status: 'rekeyed', reason: null, roundTrips: 3 });
      assert.deepEqual(
        (await eventsOf(server, id)).map((e) => e.type),
        ['tag.created', 'tag.configured', 'tag.rekeyed', 'tag.rekeyed'],
      );
    });

    it('refusals: a created tag is refused (409), --all-created does not rekey, a tag without an emulated card is named', async () => {
      const { server, world } = suite;
      const { id } = await createdTag(server, world.sandbox.key);
      saveCard(server.storage.env.TAPPROOF_DATA_DIR!, id, new Ntag424Card());
      const refused = await writer('--rekey', id);
      assert.equal(refused.code, 1);
      assert.equal(refused.stdout, `${id}: refused (409 The tag is not configured: only the chip of a configured tag can be rekeyed)\n0 of 1 tag rekeyed\n`);
      const all = await writer('--rekey', '--all-created');
      assert.equal(all.code, 1);
      assert.equal(all.stderr, 'tapproof: --rekey takes tag ids, not --all-created\n');
      // Configured through the relay in process: no card file in the data dir.
      const other = await createdTag(server, world.sandbox.key);
      const card = new Ntag424Card();
      const { writeTag } = await import('./helpers.js');
      assert.equal((await writeTag(server, world.sandbox.key, other.id, card)).status, 'configured');
      const missing = await writer('--rekey', other.id);
      assert.equal(missing.code, 1);
      assert.match(
        missing.stderr,
        new RegExp(`^tapproof: ${other.id}: no emulated card in .+${other.id}\\.json to rekey: only a chip written here with --reader emulator has one \\(`),
      );
    });

    it(
      '--reader pcsc rekeys through pcscd and vsmartcard vpcd; a chip taken out after ChangeKey 1 taps genuine, and a rerun rekeys',
      { skip: pcscSkip() },
      async (t) => {
        const { server, world } = suite;
        const key = world.sandbox.key;
        const { id } = await createdTag(server, key);
        const card = new Ntag424Card();
        const pcsc = (...args: string[]) => writer('--reader', 'pcsc', '--pcsc-reader', READER, '--json', ...args);
        const ran = await withVpcdCard(t, card, VPCD_PORT, async () => {
          const r = await pcsc(id);
          assert.equal(r.code, 0, r.stderr + r.stdout);
          assert.equal(JSON.parse(r.stdout).status, 'configured');
        });
        if (!ran) return;
        const first = await tapsGenuine(server, key, card, id);
        // Out of the reader once ChangeKey 1 has run (its answer lost): the writer reports the removal.
        card.injectFault({ kind: 'drop', ins: 0xc4 });
        await withVpcdCard(t, card, VPCD_PORT, async () => {
          const r = await pcsc('--rekey', id);
          assert.equal(r.code, 1, r.stderr + r.stdout);
          const out = JSON.parse(r.stdout);
          assert.equal(out.status, 'failed');
          assert.equal(out.reason?.code, 'chip_removed', r.stdout);
        });
        assert.deepEqual(
          [0, 1, 2, 3, 4].map((k) => card.keyVersion(k)),
          [1, 2, 1, 1, 1],
        );
        card.powerOn();
        const between = await tapsGenuine(server, key, card, id);
        assert.ok(between.counter > first.counter);
        await withVpcdCard(t, card, VPCD_PORT, async () => {
          const r = await pcsc('--rekey', id);
          assert.equal(r.code, 0, r.stderr + r.stdout);
          assert.equal(JSON.parse(r.stdout).status, 'rekeyed');
        });
        assert.deepEqual(
          [0, 1, 2, 3, 4].map((k) => card.keyVersion(k)),
          [2, 2, 2, 2, 2],
        );
        const after = await tapsGenuine(server, key, card, id);
        assert.ok(after.counter > between.counter);
        assert.deepEqual(await chipOf(server, id).then((c) => [c.key_version, c.pending_key_version]), [2, null]);
      },
    );
  });
}
