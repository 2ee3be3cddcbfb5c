// The read API under random ids and query parameters, and the signal thresholds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { call } from '../../kit/harness.js';
import { RUNS, shapedId, junkId, maybeJunk, judge, type PropertySuite } from './kit.js';

export function readProperties(p: PropertySuite): void {
  const { tally, s, key, live, property, pathOf } = p;
  test('the read API: lists, statistics, deliveries and redelivery under random ids and query parameters', async (t) => {
    const READS = [
      'GET /teams/current',
      'GET /keys',
      'GET /users',
      'GET /audit-events',
      'GET /verifications',
      'GET /verifications/stats',
      'GET /verifications/export',
      'GET /tags/export',
      'GET /verifications/:id/ownership-proofs',
      'GET /verifications/:id/claims',
      'GET /webhooks',
      'GET /webhooks/:id/deliveries',
      'POST /webhooks/:id/deliveries/:eventId/redeliver',
      'GET /products',
      'GET /tokens',
      'GET /tokens/:id/holdings',
    ];
    const arbitrary = fc.record({
      route: fc.constantFrom(...READS),
      id: fc.oneof(shapedId('vrf'), shapedId('whk'), junkId),
      event: fc.oneof(shapedId('evt'), junkId),
      name: fc.constantFrom(
        'page_size',
        'cursor',
        'since',
        'until',
        'genuine',
        'reason',
        'signal',
        'flagged',
        'tag_id',
        'status',
        'q',
        'url',
        'uid',
        'country',
        'actor',
        'resource',
        'operation',
        'unknown',
      ),
      value: fc.oneof(fc.string(), fc.integer().map(String)),
    });
    await property(t, READS, RUNS.ids, arbitrary, async (c) => {
      const path = c.route
        .slice(c.route.indexOf(' ') + 1)
        .replace(':id', pathOf(c.id))
        .replace(':eventId', pathOf(c.event));
      const query = `?${encodeURIComponent(c.name)}=${encodeURIComponent(c.value)}`;
      const r = await call(s(), c.route.startsWith('POST') ? 'POST' : 'GET', path + query, { key: c.route === 'GET /users' ? live() : key() });
      judge(tally, c.route, r);
    });
  });

  test('PATCH /teams/current: any thresholds; GET /teams/current then shows exactly the ones accepted', async (t) => {
    const THRESHOLDS = { counter_gap: [1, 16_777_215], country_jump_window: [0, 2_592_000], replay_burst: [1, 10_000] } as const;
    const value = (name: keyof typeof THRESHOLDS) => {
      const [min, max] = THRESHOLDS[name];
      return fc.oneof(
        { weight: 6, arbitrary: fc.integer({ min, max }) },
        { weight: 2, arbitrary: fc.constantFrom(min - 1, max + 1, min, max) },
        { weight: 1, arbitrary: fc.oneof(fc.double(), fc.string(), fc.constant(null), fc.boolean(), fc.array(fc.nat(), { maxLength: 2 })) },
      );
    };
    const thresholds = fc.record(
      { counter_gap: value('counter_gap'), country_jump_window: value('country_jump_window'), replay_burst: value('replay_burst') },
      { requiredKeys: [] },
    );
    const arbitrary = fc.record({
      thresholds: fc.oneof({ weight: 8, arbitrary: thresholds }, { weight: 1, arbitrary: fc.oneof(fc.string(), fc.nat(), fc.constant(null)) }),
      other: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('name', 'parent_id', 'junk') }),
      stray: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.nat() }),
      junk: maybeJunk,
    });
    let current = (await call(s(), 'GET', '/teams/current', { key: key() })).body.data.attributes.signal_thresholds;
    await property(t, ['PATCH /teams/current'], RUNS.cheap, arbitrary, async (c) => {
      const attributes: Record<string, unknown> = { signal_thresholds: c.thresholds };
      if (c.other !== undefined) attributes[c.other] = 'x';
      if (c.stray !== undefined && typeof c.thresholds === 'object' && c.thresholds !== null) (c.thresholds as Record<string, unknown>).stray = c.stray;
      const r = await call(s(), 'PATCH', '/teams/current', { key: key(), body: c.junk ?? { data: { type: 'teams', attributes } } });
      judge(tally, 'PATCH /teams/current', r);
      if (r.status === 200) {
        assert.deepEqual(r.body.data.attributes.signal_thresholds, { ...current, ...(c.thresholds as object) });
        current = r.body.data.attributes.signal_thresholds;
      } else assert.ok(r.status === 400 || r.status === 422, r.text);
      const read = await call(s(), 'GET', '/teams/current', { key: key() });
      judge(tally, 'GET /teams/current', read);
      assert.deepEqual(read.body.data.attributes.signal_thresholds, current);
    });
  });
}
