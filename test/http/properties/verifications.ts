// Scans: POST /verifications with any url, then the verification and its session read back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { call } from '../../kit/harness.js';
import { emulated, flipHexDigit, tapUrl } from '../../verifications/helpers.js';
import { RUNS, shapedId, junkId, pick, fromPool, urlChoice, resolveUrl, maybeJunk, judge, type PropertySuite } from './kit.js';

export function verificationProperties(p: PropertySuite): void {
  const { suite, tally, urls, s, key, property, readsBack, resolveId, pathOf } = p;
  test('POST /verifications, then GET /verifications/:id and GET /sessions/:id', async (t) => {
    const chips = await Promise.all(['ntag_424_dna', 'ntag_424_dna_tag_tamper', 'ntag_223_dna'].map((p) => emulated(s(), suite.world.teamId, p)));
    const taps: string[] = [];
    const verifications: string[] = [];
    const sessions: string[] = [];
    const arbitrary = fc.record({
      scan: fc.oneof(
        { weight: 6, arbitrary: fc.nat({ max: chips.length - 1 }).map((chip) => ({ chip })) },
        { weight: 1, arbitrary: pick.map((replay) => ({ replay })) },
        { weight: 1, arbitrary: fc.record({ flip: pick, digit: fc.integer({ min: 1, max: 20 }) }) },
        { weight: 1, arbitrary: urlChoice.map((url) => ({ url })) },
      ),
      clientIp: fc.option(
        fc.oneof(
          { weight: 4, arbitrary: fc.oneof(fc.ipV4(), fc.ipV6()).map((value) => ({ value, valid: true })) },
          { weight: 1, arbitrary: fc.constantFrom('999.1.1.1', '', 'localhost', 5).map((value) => ({ value, valid: false })) },
        ),
        { freq: 3, nil: undefined },
      ),
      junk: maybeJunk,
    });
    await property(t, ['POST /verifications', 'GET /verifications/:id', 'GET /sessions/:id'], RUNS.write, arbitrary, async ({ scan, clientIp, junk }) => {
      let url: unknown;
      if ('chip' in scan) taps.push((url = await tapUrl(s(), chips[scan.chip]!.id)));
      else if ('replay' in scan) url = fromPool(taps, scan.replay) ?? 'https://example.com/';
      else if ('flip' in scan) url = flipHexDigit(fromPool(taps, scan.flip) ?? 'https://example.com/?cmac=00', scan.digit);
      else url = resolveUrl(scan.url, urls);
      const attributes: Record<string, unknown> = { url };
      if (clientIp !== undefined) attributes.client_ip = clientIp.value;
      const r = await call(s(), 'POST', '/verifications', { key: key(), body: junk ?? { data: { type: 'verifications', attributes } } });
      judge(tally, 'POST /verifications', r);
      if ('chip' in scan && junk === undefined && clientIp?.valid !== false) assert.equal(r.status, 201, r.text);
      if (r.status !== 201) return;
      verifications.push(r.body.data.id);
      await readsBack('GET /verifications/:id', `/verifications/${r.body.data.id}`, r.body.data);
      const session = r.body.data.attributes.session_id;
      if (session === null) return;
      sessions.push(session);
      const read = await call(s(), 'GET', `/sessions/${session}`, { key: key() });
      judge(tally, 'GET /sessions/:id', read);
      assert.equal(read.status, 200, read.text);
      assert.ok(read.body.data.attributes.verification_ids.includes(r.body.data.id));
    });
    // Reads by any id: own ones 200, the same id under the production key 404, the rest 404.
    const reads = fc.record({
      route: fc.constantFrom('verifications', 'sessions'),
      id: fc.oneof(
        pick.map((known) => ({ known })),
        shapedId('ver').map((id) => ({ id })),
        shapedId('ses').map((id) => ({ id })),
        junkId.map((id) => ({ id })),
      ),
      production: fc.boolean(),
    });
    await property(t, ['GET /verifications/:id', 'GET /sessions/:id'], RUNS.read, reads, async (c) => {
      const id = resolveId(c.id, c.route === 'verifications' ? verifications : sessions);

      const r = await call(s(), 'GET', `/${c.route}/${pathOf(id)}`, { key: c.production ? suite.world.production.key : key() });
      judge(tally, `GET /${c.route}/:id`, r);
      const pool = c.route === 'verifications' ? verifications : sessions;
      assert.equal(r.status, 'known' in c.id && pool.length > 0 && !c.production ? 200 : 404, r.text);
    });
  });
}
