// Cases across server processes (docs/cases.md#how-a-case-opens): flagged scans of one tag sent at once
// to two `tapproof serve` processes on one database make exactly one case holding every one of them,
// announced once; several tags at once make one case each.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppContext } from '../../src/context.js';
import { createEmulatedChip, tap } from '../../src/emulator/service.js';
import { cliActor } from '../../src/audit/record.js';
import type { ServeProcess } from '../cli/process.js';
import { DATABASES, type Storage } from '../kit/harness.js';
import { flipHexDigit, seededStorage, startServeOn, verify as verifyWith } from '../verifications/helpers.js';

for (const kind of DATABASES) {
  describe(`one case per tag across server processes (${kind})`, () => {
    let storage: Storage;
    let ctx: AppContext;
    let key: string;
    let teamId: string;
    let servers: ServeProcess[];

    before(async () => {
      ({ storage, ctx, teamId, key } = await seededStorage(kind, 'cases'));
      servers = await Promise.all([startServeOn(storage), startServeOn(storage)]);
    });
    after(async () => {
      const codes = await Promise.all(servers.map((s) => s.stop()));
      await ctx.db.close();
      await storage.drop();
      assert.deepEqual(codes, [0, 0]);
    });

    const newTag = async () =>
      (
        await createEmulatedChip(ctx, {
          teamId,
          url: `https://example.com/c/${Math.random().toString(36).slice(2)}`,
          protocol: 'ntag_424_dna',
          actor: cliActor(),
        })
      ).id;

    /** Copies of a forged URL of the tag, sent at once, alternating between the two processes: their signals. */
    async function forgedAtOnce(tagId: string, copies: number): Promise<string[][]> {
      const url = flipHexDigit((await tap(ctx, tagId)).url);
      const answers = await Promise.all(Array.from({ length: copies }, (_, i) => verifyWith(servers[i % 2]!, key, url)));
      assert.deepEqual([...new Set(answers.map((a) => a.status))], [201]);
      return answers.map((a) => a.body.data.attributes.signals as string[]);
    }

    async function casesOf(tagId: string) {
      const cases = await ctx.db.kysely.selectFrom('cases').select(['id', 'state', 'scans', 'signals']).where('tag_id', '=', tagId).execute();
      const flagged = await ctx.db.kysely.selectFrom('verifications').select('id').where('tag_id', '=', tagId).where('signals', 'is not', null).execute();
      const joined = await ctx.db.kysely
        .selectFrom('case_scans')
        .select('verification_id')
        .where(
          'case_id',
          'in',
          cases.map((c) => c.id),
        )
        .execute();
      const opened = await ctx.db.kysely.selectFrom('events').select('id').where('tag_id', '=', tagId).where('type', '=', 'case.opened').execute();
      return { cases, flagged: flagged.map((f) => f.id).sort(), joined: joined.map((j) => j.verification_id).sort(), opened: opened.length };
    }

    test('60 copies of a forged URL of one tag at once across two processes: one case of the 58 flagged scans, opened once', async () => {
      const tagId = await newTag();
      const signals = await forgedAtOnce(tagId, 60);
      assert.equal(signals.filter((s) => s.join() === 'replay_burst').length, 58);
      const { cases, flagged, joined, opened } = await casesOf(tagId);
      assert.deepEqual(
        cases.map((c) => [c.state, c.scans, c.signals]),
        [['open', 58, 'replay_burst']],
      );
      assert.equal(flagged.length, 58);
      assert.deepEqual(joined, flagged);
      assert.equal(opened, 1);
    });

    test('eight tags at once, each with flagged scans on both processes: one case per tag, each with its own scans', async () => {
      const tags = await Promise.all(Array.from({ length: 8 }, newTag));
      await Promise.all(tags.map((tagId) => forgedAtOnce(tagId, 12)));
      for (const tagId of tags) {
        const { cases, flagged, joined, opened } = await casesOf(tagId);
        assert.deepEqual(
          cases.map((c) => [c.state, c.scans]),
          [['open', 10]],
        );
        assert.deepEqual(joined, flagged);
        assert.equal(opened, 1);
      }
    });
  });
}
