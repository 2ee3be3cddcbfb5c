// Triaging a case over the API on both engines: every refused change is a 422 naming the attribute and changes
// nothing; a request that changes nothing records nothing; the list's filters and keyset pages.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, call, sharedServer, type SeededTeam } from '../kit/harness.js';
import { assertError, assertValidation } from '../kit/assertions.js';
import { emulated, flipHexDigit, tapUrl, verify } from '../verifications/helpers.js';
import { invited } from '../users/helpers.js';

for (const kind of DATABASES) {
  describe(`triaging cases (${kind})`, () => {
    const suite = sharedServer(kind);

    /** A new team's case: a forged URL sent three times is a replay burst. */
    async function newCase(world?: SeededTeam): Promise<{ world: SeededTeam; id: string; tagId: string }> {
      const w = world ?? (await suite.server.seedTeam());
      const tag = await emulated(suite.server, w.teamId, 'ntag_424_dna');
      const forged = flipHexDigit(await tapUrl(suite.server, tag.id));
      for (let i = 0; i < 3; i++) await verify(suite.server, w.sandbox.key, forged);
      const listed = await call(suite.server, 'GET', `/cases?tag_id=${tag.id}`, { key: w.sandbox.key });
      assert.equal(listed.body.data.length, 1, listed.text);
      return { world: w, id: listed.body.data[0].id, tagId: tag.id };
    }
    const patch = (world: SeededTeam, id: string, attributes: unknown) =>
      call(suite.server, 'PATCH', `/cases/${id}`, { key: world.sandbox.key, body: { data: { type: 'cases', attributes } } });
    const records = async (id: string) =>
      (await suite.server.ctx.db.kysely.selectFrom('audit_events').select('operation').where('resource_id', '=', id).execute()).length;

    test('refused triages name the attribute and change nothing', async () => {
      const { world, id } = await newCase();
      const before = (await call(suite.server, 'GET', `/cases/${id}`, { key: world.sandbox.key })).body.data;
      const stranger = await suite.server.seedTeam();
      const strangerPerson = await invited(suite.server, stranger.teamId, `stranger-${kind}@example.com`, 'write');
      const cases: [unknown, string[]][] = [
        [{ state: 'closed' }, ['/data/attributes/state']],
        [{ state: 'resolved' }, ['/data/attributes/resolution']],
        [{ state: 'resolved', resolution: 'other' }, ['/data/attributes/resolution_note']],
        [{ resolution: 'false_positive' }, ['/data/attributes/resolution']],
        [{ resolution_note: 'why' }, ['/data/attributes/resolution_note']],
        [{ state: 'acknowledged', resolution: 'expected' }, ['/data/attributes/resolution']],
        [{ assignee_id: 'someone' }, ['/data/attributes/assignee_id']],
        [{ assignee_id: strangerPerson.id }, ['/data/attributes/assignee_id']],
        [{ tag_id: 'tag_x', scans: 9 }, ['/data/attributes/tag_id', '/data/attributes/scans']],
        [{ state: 'resolved', resolution: 'other', resolution_note: 'a\u0000b' }, ['/data/attributes/resolution_note']],
      ];
      for (const [attributes, pointers] of cases) assertValidation(await patch(world, id, attributes), pointers);
      assertError(await call(suite.server, 'PATCH', `/cases/${id}`, { key: world.sandbox.key, body: { data: { type: 'tags', attributes: {} } } }), 400);
      assertError(
        await call(suite.server, 'PATCH', `/cases/${id}`, { key: world.sandbox.key, body: { data: { type: 'cases', id: 'case_other', attributes: {} } } }),
        400,
      );
      assert.deepEqual((await call(suite.server, 'GET', `/cases/${id}`, { key: world.sandbox.key })).body.data, before);
      assert.equal(await records(id), 0);
    });

    test('an unchanged triage records nothing; acknowledged goes back to open; a resolved case stays so', async () => {
      const { world, id } = await newCase();
      assert.equal((await patch(world, id, { state: 'open', assignee_id: null })).status, 200);
      assert.equal(await records(id), 0);
      assert.equal((await patch(world, id, { state: 'acknowledged' })).status, 200);
      const reopened = await patch(world, id, { state: 'open' });
      assert.deepEqual([reopened.body.data.attributes.state, reopened.body.data.attributes.acknowledged_at !== null], ['open', true]);
      const resolved = await patch(world, id, { state: 'resolved', resolution: 'expected', resolution_note: 'A reseller in Canada' });
      assert.equal(resolved.status, 200, resolved.text);
      // Sent again (a retry): the same answer, nothing recorded.
      assert.deepEqual((await patch(world, id, { state: 'resolved', resolution: 'expected' })).body.data, resolved.body.data);
      assert.equal(await records(id), 3);
      assertValidation(await patch(world, id, { assignee_id: null, resolution: 'false_positive' }), ['/data/attributes/resolution']);
      // Notes are still taken: the thread outlives the decision.
      const note = await call(suite.server, 'POST', `/cases/${id}/notes`, {
        key: world.sandbox.key,
        body: { data: { type: 'case-notes', attributes: { body: 'Confirmed by the reseller.' } } },
      });
      assert.equal(note.status, 201, note.text);
      for (const body of ['', '   ', 'x'.repeat(10_001), 'bell\u0007']) {
        const refused = await call(suite.server, 'POST', `/cases/${id}/notes`, {
          key: world.sandbox.key,
          body: { data: { type: 'case-notes', attributes: { body } } },
        });
        assertValidation(refused, ['/data/attributes/body']);
      }
      assertError(
        await call(suite.server, 'POST', `/cases/${id}/notes`, { key: world.sandbox.key, body: { data: { type: 'case-notes', attributes: {} } } }),
        400,
      );
    });

    test('GET /cases: keyset pages newest opened first, filters, and 400 naming a bad parameter', async () => {
      const world = await suite.server.seedTeam();
      const ids = [];
      for (let i = 0; i < 5; i++) {
        suite.server.clock.advance(1_000);
        ids.push((await newCase(world)).id);
      }
      const seen: string[] = [];
      let next: string | null = '/cases?page_size=2';
      while (next !== null) {
        const page = await call(suite.server, 'GET', next.replace(/^.*\/cases/, '/cases'), { key: world.sandbox.key });
        assert.equal(page.status, 200, page.text);
        assert.deepEqual(page.body.meta.counts, { open: 5, acknowledged: 0, resolved: 0 });
        seen.push(...page.body.data.map((c: { id: string }) => c.id));
        next = page.body.links.next;
      }
      assert.deepEqual(seen, [...ids].reverse());
      for (const [query, parameter] of [
        ['state=closed', 'state'],
        ['signal=glitter', 'signal'],
        ['tag_id=nope', 'tag_id'],
        ['assignee_id=nobody', 'assignee_id'],
        ['since=yesterday', 'since'],
        ['page_size=0', 'page_size'],
        ['cursor=abc', 'cursor'],
        ['colour=red', 'colour'],
      ]) {
        const r = await call(suite.server, 'GET', `/cases?${query}`, { key: world.sandbox.key });
        assert.equal(r.status, 400, query);
        assert.equal(r.body.errors[0].source.parameter, parameter, query);
      }
    });
  });
}
