// Cases through @tapproof/sdk against the real server on both engines: listed with filters and counts, read
// with their scans (all of them through the verifications' case_id), triaged and noted; a refused triage is a TapproofError naming the attribute.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Tapproof, TapproofError, type Case } from '@tapproof/sdk';
import { DATABASES, call, sharedServer } from '../kit/harness.js';
import { emulated, flipHexDigit, tapUrl, verify } from '../verifications/helpers.js';

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

for (const kind of DATABASES) {
  describe(`@tapproof/sdk cases (${kind})`, () => {
    const suite = sharedServer(kind);
    const client = () => new Tapproof({ baseUrl: suite.server.origin, key: suite.world.sandbox.key });

    /** A tag whose forged URL was sent three times: a replay burst, which opens a case. */
    async function caseOfNewTag(): Promise<string> {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna');
      const forged = flipHexDigit(await tapUrl(suite.server, tag.id));
      for (let i = 0; i < 3; i++) assert.equal((await verify(suite.server, suite.world.sandbox.key, forged)).status, 201);
      return tag.id;
    }

    test('list, counts, get, update and addNote; a refused triage names the attribute', async () => {
      const tp = client();
      const tags = [await caseOfNewTag(), await caseOfNewTag(), await caseOfNewTag()];
      const listed: Case[] = await all(tp.cases.list({ page_size: 2 }));
      assert.deepEqual(listed.map((c) => c.attributes.tag_id).sort(), [...tags].sort());
      assert.deepEqual(await tp.cases.counts(), { open: 3, acknowledged: 0, resolved: 0 });
      const [first] = await all(tp.cases.list({ tag_id: tags[0]!, signal: 'replay_burst' }));
      assert.deepEqual([first!.attributes.scans, first!.attributes.signals], [1, ['replay_burst']]);
      const read = await tp.cases.get(first!.id);
      assert.deepEqual(read.data, first);
      assert.deepEqual(
        read.included.map((r) => r.type),
        ['verifications'],
      );
      // Every scan of the case, a page at a time: the list filtered by the case.
      assert.deepEqual(
        (await all(tp.verifications.list({ case_id: first!.id, page_size: 1 }))).map((v) => v.id),
        read.included.map((r) => r.id),
      );

      const refused = await tp.cases.update(first!.id, { state: 'resolved', resolution: 'other' }).then(
        () => assert.fail('not refused'),
        (e: unknown) => e,
      );
      assert.ok(refused instanceof TapproofError);
      assert.deepEqual([refused.status, refused.pointer], [422, '/data/attributes/resolution_note']);
      const resolved = await tp.cases.update(first!.id, { state: 'resolved', resolution: 'other', resolution_note: 'A test print run' });
      assert.deepEqual([resolved.attributes.state, resolved.attributes.resolution_note], ['resolved', 'A test print run']);
      const note = await tp.cases.addNote(first!.id, 'Printed by the brand itself.');
      assert.deepEqual([note.attributes.case_id, note.attributes.body, note.attributes.author.type], [first!.id, 'Printed by the brand itself.', 'key']);
      assert.deepEqual(await tp.cases.counts(), { open: 2, acknowledged: 0, resolved: 1 });
      assert.deepEqual(
        (await all(tp.cases.list({ state: 'resolved' }))).map((c) => c.id),
        [first!.id],
      );
      // Another team's key sees none of it.
      const outsider = await suite.server.seedTeam();
      assert.equal((await call(suite.server, 'GET', `/cases/${first!.id}`, { key: outsider.sandbox.key })).status, 404);
    });
  });
}
