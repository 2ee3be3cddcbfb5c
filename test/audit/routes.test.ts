// Every route of test/http/routes.ts that changes something, as its owner, on both databases: the
// audit log gains exactly the record its row names (who, what, from where, which request), in the
// change's transaction; a route without an `audit` entry fails here, so a new one cannot skip the log.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AuditRow } from '../../src/audit/repository.js';
import { DATABASES, call, sharedServer, type TestServer } from '../kit/harness.js';
import { randomUUID } from 'node:crypto';
import { ROUTES, ownerKey, seedOwned, type Owned } from '../http/routes.js';
import { authCall, invited, redeemed } from '../users/helpers.js';
import { createdTag } from '../writer/helpers.js';

/**
 * The success the OpenAPI document gives the route: each changing route documents one, but for a
 * holding's set, which is 201 here because the owner's request names an address that held none.
 */
async function documentedSuccess(server: TestServer, route: { method: string; pattern: string }): Promise<number> {
  const document = await (await fetch(`${server.base}/openapi.json`)).json();
  const operation = document.paths[route.pattern.replace(/:(\w+)/g, '{$1}')][route.method.toLowerCase()];
  const statuses = Object.keys(operation.responses).filter((s) => s.startsWith('2'));
  if (route.method === 'POST' && route.pattern === '/tokens/:id/holdings') return 201;
  assert.equal(statuses.length, 1, `${route.method} ${route.pattern} documents ${statuses.join(', ')}`);
  return Number(statuses[0]);
}

const auditRows = (server: TestServer, teamId: string): Promise<AuditRow[]> =>
  server.ctx.db.kysely.selectFrom('audit_events').selectAll().where('team_id', '=', teamId).orderBy('id').execute();

for (const kind of DATABASES) {
  describe(`the audit log over every changing route (${kind})`, () => {
    const suite = sharedServer(kind);

    test('every route but GET names what the log records for it', () => {
      const missing = ROUTES.filter((r) => r.method !== 'GET' && r.audit === undefined).map((r) => `${r.method} ${r.pattern}`);
      assert.deepEqual(missing, []);
      const reads = ROUTES.filter((r) => r.method === 'GET' && r.audit !== undefined).map((r) => `${r.method} ${r.pattern}`);
      assert.deepEqual(reads, []);
    });

    for (const route of ROUTES.filter((r) => r.method !== 'GET')) {
      test(`${route.method} ${route.pattern} → ${typeof route.audit === 'string' ? route.audit : 'nothing'}`, async () => {
        const { server } = suite;
        const world = await server.seedTeam({ name: `audit ${route.method} ${route.pattern}` });
        const owned: Owned = await seedOwned(server, world);
        // The table's requests are built for the matrix, where another world sends them: in the owner's world the
        // owned tag's url is taken and the tag has a write running, so those two routes name a fresh one.
        const fresh = { ...owned, tag: await createdTag(server, world.sandbox.key) };
        const request = route.request(
          route.pattern === '/tags' && route.method === 'POST'
            ? { ...fresh, tag: { ...fresh.tag, url: `${fresh.tag.url}/new` } }
            : route.pattern === '/writer/writes'
              ? fresh
              : owned,
        );
        // The owner's key, or where no key may call the route, an admin of the team signed in to the console.
        const key = ownerKey(route, world);
        const person = key === null ? await invited(server, world.teamId, `audit-${randomUUID()}@example.com`) : null;
        const session = person ? await redeemed(server, person.token) : null;
        const actor = person ? ['user', person.id] : ['key', key === world.production.key ? world.production.id : world.sandbox.id];
        const before = new Set((await auditRows(server, world.teamId)).map((r) => r.id));
        const response = session
          ? await authCall(server, route.method, request.path, { as: session, api: true, body: request.body })
          : await call(server, route.method, request.path, { key, body: request.body });
        assert.equal(response.status, await documentedSuccess(server, route), response.text);
        const added = (await auditRows(server, world.teamId)).filter((r) => !before.has(r.id));
        if (typeof route.audit !== 'string') {
          assert.deepEqual(added, []);
          return;
        }
        assert.equal(added.length, 1, JSON.stringify(added));
        const [event] = added;
        assert.equal(event!.operation, route.audit);
        assert.equal(event!.resource_type, route.audit.split('.')[0]);
        // A change to the team's users belongs to the team, not to the world the key is of.
        assert.equal(event!.mode, route.teamWide === undefined ? 'sandbox' : null);
        assert.deepEqual([event!.actor_type, event!.actor_id], actor);
        assert.equal(event!.address, '127.0.0.1');
        assert.equal(event!.request_id, response.headers.get('x-request-id'));
        assert.notEqual(event!.resource_id, null);
        // A key's text, a webhook's secret: never in the record.
        const text = JSON.stringify(event);
        assert.ok(!text.includes(world.sandbox.key) && !text.includes(world.production.key) && !/whsec_|tp_(sandbox|live)_/.test(text), text);
      });
    }
  });
}
