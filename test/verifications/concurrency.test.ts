// The counter compare-and-set: many simultaneous requests with one fresh URL
// give exactly one genuine first verification, on both databases.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { emulated, tapUrl, verify } from './helpers.js';

for (const kind of DATABASES) {
  describe(`concurrent verifications (${kind})`, () => {
    const suite = sharedServer(kind);

    test('20 simultaneous requests with the same fresh URL → one verification, every answer is it', async () => {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna');
      for (let round = 0; round < 3; round++) {
        const url = await tapUrl(suite.server, tag.id);
        const responses = await Promise.all(Array.from({ length: 20 }, () => verify(suite.server, suite.world.sandbox.key, url)));
        assert.ok(responses.every((r) => r.status === 201));
        const ids = new Set(responses.map((r) => r.body.data.id));
        assert.equal(ids.size, 1);
        assert.ok(responses.every((r) => r.body.data.attributes.genuine === true));
      }
      const rows = await suite.server.ctx.db.kysely.selectFrom('verifications').select(['reason']).where('tag_id', '=', tag.id).execute();
      assert.deepEqual(
        rows.map((r) => r.reason),
        ['ok', 'ok', 'ok'],
      );
    });

    test('simultaneous different URLs of one tag: each newer counter may win, never two with the same counter', async () => {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna');
      const urls = [];
      for (let i = 0; i < 10; i++) urls.push(await tapUrl(suite.server, tag.id));
      const responses = await Promise.all(urls.map((url) => verify(suite.server, suite.world.sandbox.key, url)));
      const genuine = responses.filter((r) => r.body.data.attributes.genuine).map((r) => r.body.data.attributes.read_counter);
      // The highest counter cannot be a replay of anything, whatever order the rest arrived in.
      assert.equal(responses[9]!.body.data.attributes.reason, 'ok', responses[9]!.text);
      assert.equal(new Set(genuine).size, genuine.length);
      // Accepted counters only ever went up, and the last one is the highest.
      const chip = await suite.server.ctx.db.kysely.selectFrom('chips').select('last_counter').where('tag_id', '=', tag.id).executeTakeFirstOrThrow();
      assert.equal(chip.last_counter, Math.max(...genuine));
      assert.ok(responses.every((r) => r.body.data.attributes.genuine || r.body.data.attributes.reason === 'replayed'));
    });
  });
}
