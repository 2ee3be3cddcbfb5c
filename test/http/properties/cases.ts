// Cases: the list under random filters, a case by any id, triage with any attributes, notes with any body.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { call } from '../../kit/harness.js';
import { emulated, flipHexDigit, tapUrl } from '../../verifications/helpers.js';
import { RUNS, stray, maybeJunk, judge, type PropertySuite } from './kit.js';

export function caseProperties(p: PropertySuite): void {
  const { suite, tally, s, key, property, idChoice, resolveId, pathOf } = p;
  test('cases: GET /cases and GET /cases/:id under random filters and ids; PATCH and notes with any attributes', async (t) => {
    // A forged URL is a replay burst at a threshold of 1 (the thresholds' property left them anywhere): each tag gets a case.
    const thresholds = (signal_thresholds: unknown) =>
      call(s(), 'PATCH', '/teams/current', { key: key(), body: { data: { type: 'teams', attributes: { signal_thresholds } } } });
    const { replay_burst: burst } = (await call(s(), 'GET', '/teams/current', { key: key() })).body.data.attributes.signal_thresholds;
    assert.equal((await thresholds({ replay_burst: 1 })).status, 200);
    const cases: string[] = [];
    for (let i = 0; i < 3; i++) {
      const chip = await emulated(s(), suite.world.teamId, 'ntag_424_dna');
      const forged = flipHexDigit(await tapUrl(s(), chip.id));
      await call(s(), 'POST', '/verifications', { key: key(), body: { data: { type: 'verifications', attributes: { url: forged } } } });
      const listed = await call(s(), 'GET', `/cases?tag_id=${chip.id}`, { key: key() });
      assert.equal(listed.body.data.length, 1, listed.text);
      cases.push(listed.body.data[0].id);
    }
    assert.equal((await thresholds({ replay_burst: burst })).status, 200);
    const odd = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.constant(null), fc.boolean(), fc.constant({}));
    const value = <T>(good: fc.Arbitrary<T>) => fc.oneof({ weight: 5, arbitrary: good }, { weight: 1, arbitrary: odd });
    const arbitrary = fc.record({
      op: fc.constantFrom('list', 'get', 'patch', 'note'),
      id: idChoice('case'),
      name: fc.constantFrom('state', 'signal', 'tag_id', 'assignee_id', 'since', 'until', 'page_size', 'cursor', 'unknown'),
      param: fc.oneof(fc.constantFrom('open', 'resolved', 'replay_burst', 'none', '2026-01-01', '0', '101'), fc.string()),
      attributes: fc.record(
        {
          state: value(fc.constantFrom('open', 'acknowledged', 'resolved')),
          assignee_id: value(fc.constantFrom(null, 'usr_000000000000000000000A')),
          resolution: value(fc.constantFrom('counterfeit_confirmed', 'false_positive', 'expected', 'other')),
          resolution_note: value(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 })),
        },
        { requiredKeys: [] },
      ),
      body: value(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 })),
      stray,
      junk: maybeJunk,
    });
    const ROUTES_HIT = ['GET /cases', 'GET /cases/:id', 'PATCH /cases/:id', 'POST /cases/:id/notes'];
    await property(t, ROUTES_HIT, RUNS.cheap, arbitrary, async (c) => {
      const id = resolveId(c.id, cases);
      if (c.op === 'list') {
        judge(tally, 'GET /cases', await call(s(), 'GET', `/cases?${encodeURIComponent(c.name)}=${encodeURIComponent(c.param)}`, { key: key() }));
      } else if (c.op === 'get') {
        const r = await call(s(), 'GET', `/cases/${pathOf(id)}`, { key: key() });
        judge(tally, 'GET /cases/:id', r);
        assert.ok(r.status === 200 || r.status === 404, r.text);
      } else if (c.op === 'patch') {
        const body = c.junk ?? { data: { type: 'cases', attributes: { ...c.attributes, ...c.stray } } };
        const r = await call(s(), 'PATCH', `/cases/${pathOf(id)}`, { key: key(), body });
        judge(tally, 'PATCH /cases/:id', r);
        assert.ok([200, 400, 404, 422].includes(r.status), r.text);
        if (r.status === 200) {
          const read = await call(s(), 'GET', `/cases/${pathOf(id)}`, { key: key() });
          judge(tally, 'GET /cases/:id', read);
          assert.deepEqual(read.body.data, r.body.data);
        }
      } else {
        const body = c.junk ?? { data: { type: 'case-notes', attributes: { body: c.body, ...c.stray } } };
        const r = await call(s(), 'POST', `/cases/${pathOf(id)}/notes`, { key: key(), body });
        judge(tally, 'POST /cases/:id/notes', r);
        assert.ok([201, 400, 404, 422].includes(r.status), r.text);
        if (r.status === 201) {
          assert.equal(r.body.data.attributes.body, c.body);
          const read = await call(s(), 'GET', `/cases/${pathOf(id)}`, { key: key() });
          judge(tally, 'GET /cases/:id', read);
          assert.deepEqual(read.body.included.at(-1), r.body.data);
        }
      }
    });
  });
}
