// The security matrix over every route of test/http/routes.ts, on both databases:
// without a valid key → 401; another team, a subteam, the parent team or the other mode
// naming the owner's resource → 404 (or an answer about its own world), and nothing of the
// owner's changes; malformed ids → 404. The first test keeps the table complete.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { newKeyText } from '../../src/keys/key-text.js';
import { revoke } from '../../src/keys/service.js';
import { DATABASES, call, sharedServer, type SeededTeam } from '../kit/harness.js';
import { assertError } from '../kit/assertions.js';
import { PUBLIC_ROUTES, ROUTES, keyless, ownerKey, registeredRoutes, seedOwned, type Owned } from './routes.js';
import { cliActor } from '../../src/audit/record.js';

const HOSTILE_IDS = ['%00', 'tag_%00', 'whk_0000000000000000000%00', '%27%20or%201%3D1--', 'x'.repeat(3000), '%F0%9F%98%80', '..%2F..'];
// Not percent-encoded UTF-8 (a lone surrogate, stray bytes): still the JSON:API 404, not the framework's 400.
const UNDECODABLE_IDS = ['%ED%A0%80', '%FF', '%E0%A4', '%C0'];

for (const kind of DATABASES) {
  describe(`route security matrix (${kind})`, () => {
    const suite = sharedServer(kind);
    let owned: Owned;
    let outsiders: [who: string, key: string][];
    let revokedKey: string;

    before(async () => {
      const { server } = suite;
      const parent = await server.seedTeam({ name: 'parent' });
      const team: SeededTeam = await server.seedTeam({ name: 'team', parent: parent.teamId });
      const sub = await server.seedTeam({ name: 'sub', parent: team.teamId });
      const other = await server.seedTeam({ name: 'other' });
      owned = await seedOwned(server, team);
      outsiders = [
        ['other team', other.sandbox.key],
        ['other team (production)', other.production.key],
        ['subteam', sub.sandbox.key],
        ['parent team', parent.sandbox.key],
        ['other mode', team.production.key],
      ];
      const revoked = await server.seedTeam({ name: 'revoked' });
      await revoke(server.ctx, revoked.sandbox.id, cliActor());
      revokedKey = revoked.sandbox.key;
    });

    test('the table names every route the server registers under the API prefix', () => {
      const tabled = [...ROUTES.map((r) => `${r.method} ${r.pattern}`), ...PUBLIC_ROUTES].sort();
      assert.deepEqual(registeredRoutes(suite.server), tabled);
    });

    test('no key, a malformed header, an unknown key, a revoked key → 401 on every route', async () => {
      const key = owned.world.sandbox.key;
      const keyless: [string, Record<string, string>][] = [
        ['no key', {}],
        ['empty header', { authorization: '' }],
        ['Bearer without key', { authorization: 'Bearer' }],
        ['Basic scheme', { authorization: `Basic ${Buffer.from('user:' + key).toString('base64')}` }],
        ['key without scheme', { authorization: key }],
        ['two tokens', { authorization: `Bearer ${key} ${key}` }],
        ['truncated key', { authorization: `Bearer ${key.slice(0, -1)}` }],
        ['unknown sandbox key', { authorization: `Bearer ${newKeyText('sandbox')}` }],
        ['unknown live key', { authorization: `Bearer ${newKeyText('production')}` }],
        ['sandbox key relabelled live', { authorization: `Bearer ${key.replace('tp_sandbox_', 'tp_live_')}` }],
        ['key id instead of key', { authorization: `Bearer ${owned.world.sandbox.id}` }],
        ['revoked key', { authorization: `Bearer ${revokedKey}` }],
      ];
      for (const route of ROUTES) {
        const { path, body } = route.request(owned);
        for (const [name, headers] of keyless) {
          const response = await call(suite.server, route.method, path, { body, headers });
          assert.equal(response.status, 401, `${route.method} ${route.pattern} with ${name}: ${response.text}`);
          assertError(response, 401);
        }
      }
    });

    test('another team, a subteam, the parent team, the other mode → 404 (or their own world), the owner unchanged', async () => {
      const { server } = suite;
      const key = owned.world.sandbox.key;
      // The owner's own key is used by taking the snapshot, so its last use may move meanwhile (written in the
      // background): that is the owner's doing, not the outsiders'.
      const snapshot = async () =>
        Promise.all(
          ROUTES.filter((r) => r.method === 'GET' && r.withId).map(async (r) =>
            (await call(server, 'GET', r.request(owned).path, { key })).text.replace(/"last_used_at":(?:"[^"]*"|null)/, '"last_used_at":"(any)"'),
          ),
        );
      const before = await snapshot();
      const ownIds = [owned.tag.id, owned.webhookId, owned.eventId, owned.writeId, owned.verificationId, owned.sessionId];
      for (const [who, outsiderKey] of outsiders) {
        for (const route of ROUTES) {
          const { path, body } = route.request(owned);
          const response = await call(server, route.method, path, { key: outsiderKey, body });
          // The team, and its users, are the other mode's key's own.
          const sameTeam = who === 'other mode' ? (route.pattern === '/teams/:id' ? 200 : route.teamWide) : undefined;
          // A route past one world refuses a sandbox key (team), or every key (person), before it reads anything.
          const beyondReach = keyless(route) || (route.reach === 'team' && outsiderKey.startsWith('tp_sandbox_'));
          const expected = beyondReach ? 403 : (sameTeam ?? route.outsider);
          // A scan no tag of the caller's world answers for says where the url was looked for.
          if (expected === 404) assertError(response, 404, { detail: route.method === 'POST' && route.pattern === '/verifications' });
          else if (expected === 403) assertError(response, 403, { detail: true });
          else assert.equal(response.status, expected, `${who}: ${route.method} ${route.pattern} → ${response.text}`);
          for (const id of ownIds) assert.ok(!response.text.includes(id), `${who}: ${route.method} ${route.pattern} shows ${id}`);
        }
      }
      assert.deepEqual(await snapshot(), before);
      // The scan was refused to everyone else, so it is still fresh for its owner.
      const verified = await call(server, 'POST', '/verifications', { key, body: ROUTES.find((r) => r.pattern === '/verifications')!.request(owned).body });
      assert.equal(verified.body.data.attributes.reason, 'ok', verified.text);
    });

    test('malformed ids → 404 on every route that takes one, never 5xx', async () => {
      // A route no key may call refuses before it reads an id (test/users/reach.test.ts holds its ids).
      for (const route of ROUTES.filter((r) => r.withId && !keyless(r))) {
        const key = ownerKey(route, owned.world)!;
        for (const id of HOSTILE_IDS) {
          const decoded = decodeURIComponent(id);
          const { path } = route.withId!(id);
          const { body } = route.withId!(decoded);
          const response = await call(suite.server, route.method, path, { key, body });
          assertError(response, 404);
        }
        for (const id of UNDECODABLE_IDS) {
          const { path, body } = route.withId!(id);
          assertError(await call(suite.server, route.method, path, { key, body }), 404);
        }
      }
      assertError(await call(suite.server, 'GET', '/nowhere/%C0', { key: owned.world.sandbox.key }), 404);
    });
  });
}
