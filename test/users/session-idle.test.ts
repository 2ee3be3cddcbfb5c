// Idle expiry is as exact as the setting, on both databases: a session's last use is written often enough
// (a twentieth of the idle time at most) that a session used within the idle time lives on, and one left
// alone ends at the idle time, early by at most a twentieth of it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES, randomIp, sharedServer } from '../kit/harness.js';
import { authCall, invited, redeemed, signedIn } from './helpers.js';

for (const kind of DATABASES) {
  describe(`idle expiry with TAPPROOF_SESSION_IDLE_MINUTES=1 (${kind})`, () => {
    const suite = sharedServer(kind, { TAPPROOF_TRUST_PROXY: 'true', TAPPROOF_SESSION_IDLE_MINUTES: '1' });

    test('a session used every 15 s lives on; left alone it ends a minute after its last use, not seconds before', async () => {
      const { server } = suite;
      const email = `idle-${kind}@example.com`;
      await redeemed(server, (await invited(server, suite.world.teamId, email, 'read')).token);
      const me = await signedIn(server, email, undefined, randomIp());
      const alive = async () => (await authCall(server, 'GET', '/auth/session', { as: me })).status === 200;
      for (let i = 0; i < 20; i++) {
        server.clock.advance(15_000);
        assert.ok(await alive(), `ended after ${(i + 1) * 15} s of use every 15 s`);
      }
      server.clock.advance(56_000);
      assert.ok(await alive(), 'ended 56 s after its last use');
      server.clock.advance(61_000);
      assert.equal(await alive(), false, 'alive 61 s after its last use');
    });
  });
}
