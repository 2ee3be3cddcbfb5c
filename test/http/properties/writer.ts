// The writer: start a write, read it, and post chip answers with any ids and bodies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { call } from '../../kit/harness.js';
import { RUNS, rarely, maybeJunk, judge, type PropertySuite } from './kit.js';

export function writerProperties(p: PropertySuite): void {
  const { tally, tags, s, key, property, freshTags, readsBack, idChoice, resolveId, pathOf } = p;
  test('writer: POST /writer/writes, GET /writer/writes/:id, POST …/responses', async (t) => {
    const writes: string[] = [];
    const starts = fc.record({
      tag: fc.oneof({ weight: 6, arbitrary: fc.constant({ fresh: true }) }, { weight: 2, arbitrary: idChoice('tag') }),
      junk: maybeJunk,
    });
    await property(t, ['POST /writer/writes', 'GET /writer/writes/:id'], RUNS.write, starts, async (c) => {
      const tagId = 'fresh' in c.tag ? (await freshTags(1))[0]! : resolveId(c.tag, tags);
      const r = await call(s(), 'POST', '/writer/writes', { key: key(), body: c.junk ?? { data: { type: 'writes', attributes: { tag_id: tagId } } } });
      judge(tally, 'POST /writer/writes', r);
      if ('fresh' in c.tag && c.junk === undefined) assert.equal(r.status, 201, r.text);
      if (r.status !== 201) return;
      assert.equal(r.body.data.attributes.tag_id, tagId);
      writes.push(r.body.data.id);
      await readsBack('GET /writer/writes/:id', `/writer/writes/${r.body.data.id}`, r.body.data);
    });

    const apdu = fc.oneof(
      fc.constantFrom('9000', '9100', '91AE', '6A82', '9000'),
      fc.uint8Array({ minLength: 2, maxLength: 40 }).map((b) => Buffer.from(b).toString('hex')),
    );
    const answers = fc.record({
      id: idChoice('wrt'),
      responses: fc.oneof(
        { weight: 20, arbitrary: fc.array(apdu, { maxLength: 4 }) },
        { weight: 1, arbitrary: fc.constantFrom(['9'], ['zz00'], 'x', [1], Array(65).fill('9000')) },
      ),
      removed: fc.option(fc.oneof({ weight: 20, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constant('no') }), { freq: 4, nil: undefined }),
      abort: fc.option(fc.boolean(), { freq: 4, nil: undefined }),
      roundTrip: rarely(fc.oneof({ weight: 4, arbitrary: fc.nat({ max: 5 }) }, { weight: 1, arbitrary: fc.constantFrom(-1, 1.5, '0') }), 4),
      junk: maybeJunk,
    });
    await property(t, ['POST /writer/writes/:id/responses'], RUNS.write, answers, async (c) => {
      const id = resolveId(c.id, writes);
      const attributes: Record<string, unknown> = { responses: c.responses };
      if (c.removed !== undefined) attributes.removed = c.removed;
      if (c.abort !== undefined) attributes.abort = c.abort;
      if (c.roundTrip !== undefined) attributes.round_trip = c.roundTrip;
      const r = await call(s(), 'POST', `/writer/writes/${pathOf(id)}/responses`, {
        key: key(),
        body: c.junk ?? { data: { type: 'writes', id, attributes } },
      });
      judge(tally, 'POST /writer/writes/:id/responses', r);
      if (r.status === 200) await readsBack('GET /writer/writes/:id', `/writer/writes/${id}`, r.body.data);
    });
  });
}
