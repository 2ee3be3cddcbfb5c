// GET /sessions/:id: a genuine scan opens a session, a second genuine scan of
// the tag inside session_duration completes it, after the window it is expired.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, call, sharedServer } from '../kit/harness.js';
import { emulated, tapUrl, verify } from './helpers.js';

for (const kind of DATABASES) {
  describe(`GET /sessions/:id (${kind})`, () => {
    const suite = sharedServer(kind);
    const session = async (id: string) => (await call(suite.server, 'GET', `/sessions/${id}`, { key: suite.world.sandbox.key })).body.data;

    test('open after the first genuine scan, completed by the second; the third opens a new one', async () => {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna');
      const first = (await verify(suite.server, suite.world.sandbox.key, await tapUrl(suite.server, tag.id))).body.data;
      const opened = await session(first.attributes.session_id);
      assert.equal(opened.type, 'sessions');
      assert.equal(opened.id, first.attributes.session_id);
      assert.deepEqual(Object.keys(opened.attributes).sort(), ['expires_at', 'opened_at', 'status', 'tag_id', 'verification_ids']);
      assert.equal(opened.attributes.status, 'open');
      assert.equal(opened.attributes.tag_id, tag.id);
      assert.deepEqual(opened.attributes.verification_ids, [first.id]);
      assert.equal(Date.parse(opened.attributes.expires_at) - Date.parse(opened.attributes.opened_at), 600_000);
      // A failed or replayed attempt is no part of any session.
      const stale = await tapUrl(suite.server, tag.id);
      const second = (await verify(suite.server, suite.world.sandbox.key, await tapUrl(suite.server, tag.id))).body.data;
      assert.equal((await verify(suite.server, suite.world.sandbox.key, stale)).body.data.attributes.session_id, null);
      assert.equal(second.attributes.session_id, first.attributes.session_id);
      const completed = await session(first.attributes.session_id);
      assert.equal(completed.attributes.status, 'completed');
      assert.deepEqual(completed.attributes.verification_ids, [first.id, second.id]);
      const third = (await verify(suite.server, suite.world.sandbox.key, await tapUrl(suite.server, tag.id))).body.data;
      assert.notEqual(third.attributes.session_id, first.attributes.session_id);
      assert.equal((await session(third.attributes.session_id)).attributes.status, 'open');
      // The fourth genuine scan completes the third's session.
      assert.equal(
        (await verify(suite.server, suite.world.sandbox.key, await tapUrl(suite.server, tag.id))).body.data.attributes.session_id,
        third.attributes.session_id,
      );
    });

    test('expired after session_duration; the next genuine scan opens a new session', async () => {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_223_dna', { sessionDuration: 1 });
      const first = (await verify(suite.server, suite.world.sandbox.key, await tapUrl(suite.server, tag.id))).body.data;
      // Past the 1 s session_duration, without waiting for it.
      suite.server.clock.advance(1100);
      assert.equal((await session(first.attributes.session_id)).attributes.status, 'expired');
      const next = (await verify(suite.server, suite.world.sandbox.key, await tapUrl(suite.server, tag.id))).body.data;
      assert.notEqual(next.attributes.session_id, first.attributes.session_id);
      assert.equal((await session(next.attributes.session_id)).attributes.status, 'open');
      assert.deepEqual((await session(first.attributes.session_id)).attributes.verification_ids, [first.id]);
    });

    test('a session_duration changed by PATCH applies to the next session of an already scanned tag', async () => {
      const tag = await emulated(suite.server, suite.world.teamId, 'ntag_424_dna');
      const first = (await verify(suite.server, suite.world.sandbox.key, await tapUrl(suite.server, tag.id))).body.data;
      const patched = await call(suite.server, 'PATCH', `/tags/${tag.id}`, {
        key: suite.world.sandbox.key,
        body: { data: { type: 'tags', id: tag.id, attributes: { session_duration: 5 } } },
      });
      assert.equal(patched.status, 200);
      // The open session keeps its window; the next one gets the new duration.
      const second = (await verify(suite.server, suite.world.sandbox.key, await tapUrl(suite.server, tag.id))).body.data;
      assert.equal(second.attributes.session_id, first.attributes.session_id);
      const third = (await verify(suite.server, suite.world.sandbox.key, await tapUrl(suite.server, tag.id))).body.data;
      const opened = await session(third.attributes.session_id);
      assert.equal(Date.parse(opened.attributes.expires_at) - Date.parse(opened.attributes.opened_at), 5000);
    });

    test('404 for an unknown session id', async () => {
      for (const id of ['ses_0000000000000000000000', 'x'])
        assert.equal((await call(suite.server, 'GET', `/sessions/${id}`, { key: suite.world.sandbox.key })).status, 404);
    });
  });
}
