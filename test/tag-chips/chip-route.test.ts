// GET /tags/:id/chip: the chip bound to a configured tag — UID, cryptography, write generation, last
// counter — for a tag written through the writer routes and for an emulated one; never a key; 404 for
// a tag not yet written and for another world's tag.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, call, sharedServer } from '../kit/harness.js';
import { ISO_MICROS, assertError, assertJsonApi } from '../kit/assertions.js';
import { emulated, tapUrl, verify } from '../verifications/helpers.js';
import { createdTag, newCard, writeTag } from '../writer/helpers.js';

for (const kind of DATABASES) {
  describe(`GET /tags/:id/chip (${kind})`, () => {
    const suite = sharedServer(kind);

    test('a tag written on a chip: its UID, AES, generation 1, and the counter of its last genuine scan', async () => {
      const { server, world } = suite;
      const tag = await createdTag(server, world.sandbox.key);
      assertError(await call(server, 'GET', `/tags/${tag.id}/chip`, { key: world.sandbox.key }), 404);
      const card = newCard();
      assert.equal((await writeTag(server, world.sandbox.key, tag.id, card)).status, 'configured');
      const before = await call(server, 'GET', `/tags/${tag.id}/chip`, { key: world.sandbox.key });
      assert.equal(before.status, 200, before.text);
      assertJsonApi(before);
      const { bound_at, ...attributes } = before.body.data.attributes;
      assert.match(bound_at, ISO_MICROS);
      assert.equal(before.body.data.type, 'chips');
      assert.equal(before.body.data.id, tag.id);
      assert.deepEqual(attributes, {
        protocol: 'ntag_424_dna',
        uid: card.uid.toString('hex').toUpperCase(),
        crypto: 'aes',
        mirroring: 'encrypted',
        key_source: 'derived',
        key_version: 1,
        write_generation: 1,
        last_counter: null,
      });
      assert.equal((await verify(server, world.sandbox.key, card.tap())).status, 201);
      const after = await call(server, 'GET', `/tags/${tag.id}/chip`, { key: world.sandbox.key });
      assert.equal(after.body.data.attributes.last_counter, 1);
      // Nothing that looks like key material, sealed or not.
      assert.doesNotMatch(after.text, /key_sealed|sdm_|"params"/);
    });

    test('an emulated LRP chip', async () => {
      const { server, world } = suite;
      const chip = await emulated(server, world.teamId, 'ntag_424_dna', { crypto: 'lrp' });
      const response = await call(server, 'GET', `/tags/${chip.id}/chip`, { key: world.sandbox.key });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.attributes.crypto, 'lrp');
      assert.equal(response.body.data.attributes.write_generation, 1);
      assert.match(response.body.data.attributes.uid, /^[0-9A-F]{14}$/);
      await verify(server, world.sandbox.key, await tapUrl(server, chip.id));
    });

    test("another world's tag, an unknown id and no key", async () => {
      const { server, world } = suite;
      const chip = await emulated(server, world.teamId, 'ntag_424_dna');
      const other = await server.seedTeam();
      assertError(await call(server, 'GET', `/tags/${chip.id}/chip`, { key: other.sandbox.key }), 404);
      assertError(await call(server, 'GET', `/tags/${chip.id}/chip`, { key: world.production.key }), 404);
      assertError(await call(server, 'GET', '/tags/tag_0000000000000000000000/chip', { key: world.sandbox.key }), 404);
      assertError(await call(server, 'GET', `/tags/${chip.id}/chip`), 401);
    });
  });
}
