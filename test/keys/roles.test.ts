// Every role of API key against every route of test/http/routes.ts, on both databases: a role the
// route does not admit gets 403 naming the roles that would do and changes nothing; a role it admits
// gets past the gate (never 401 or 403). The table's `access` column is written from the rules, so a
// route that declares something else, or a new route without a row, fails here.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ROLES, allows, type Role } from '../../src/http/access.js';
import { createKey } from '../../src/keys/service.js';
import { DATABASES, call, sharedServer } from '../kit/harness.js';
import { assertJsonApi } from '../kit/assertions.js';
import { ROUTES, seedOwned, type Owned } from '../http/routes.js';

/** The id of a resource that does not exist, of the kind each route names (past the role gate it is a 404). */
const UNKNOWN_ID = 'x_0000000000000000000000';

for (const kind of DATABASES) {
  describe(`key roles over every route (${kind})`, () => {
    const suite = sharedServer(kind);
    let owned: Owned;
    const keys = new Map<Role, string>();

    before(async () => {
      const { server } = suite;
      const team = await server.seedTeam({ name: 'roles' });
      owned = await seedOwned(server, team);
      for (const role of ROLES) keys.set(role, (await createKey(server.ctx.db.kysely, team.teamId, 'sandbox', server.clock, { role })).key);
    });

    test('a role the route does not admit → 403 naming the roles it needs; the owner unchanged', async () => {
      const { server } = suite;
      const snapshot = async () => {
        const rows = await Promise.all(
          ['tags', 'webhooks', 'api_keys', 'verifications', 'writer_sessions', 'signal_thresholds'].map((table) =>
            server.ctx.db.kysely
              .selectFrom(table as 'tags')
              .selectAll()
              .execute()
              // Rows in a set order: PostgreSQL returns a heap in no set order, and a key's last-use update moves its row.
              .then((r) => JSON.stringify(r.map((row: any) => JSON.stringify({ ...row, last_used_at: undefined })).sort())),
          ),
        );
        return rows;
      };
      const before = await snapshot();
      let refused = 0;
      for (const route of ROUTES) {
        for (const role of ROLES.filter((r) => !allows(r, route.access))) {
          const { path, body } = route.request(owned);
          const response = await call(server, route.method, path, { key: keys.get(role)!, body });
          assert.equal(response.status, 403, `${role}: ${route.method} ${route.pattern} → ${response.text}`);
          assertJsonApi(response);
          const [error, ...more] = response.body.errors;
          assert.equal(more.length, 0);
          assert.equal(error.status, '403');
          assert.equal(error.title, "The API key's role does not allow this request");
          assert.match(error.detail, new RegExp(`^this key's role is ${role}; this request needs a key of role `));
          const least = route.access.split('+')[0] === 'any' ? 'admin' : route.access.split('+')[0]!;
          assert.ok(error.detail.includes(least), error.detail);
          refused++;
        }
      }
      // 37 routes: admin keys are refused nowhere; write keys on the 6 admin key routes; read keys there and on
      // the 17 writes; verify keys everywhere but the 3 verify routes and GET /keys/current.
      const admins = ROUTES.filter((r) => r.access === 'admin').length;
      const writes = ROUTES.filter((r) => r.access === 'write' || r.access === 'write+verify').length;
      assert.equal(refused, admins + (admins + writes) + (ROUTES.length - 4));
      assert.deepEqual(await snapshot(), before);
    });

    test('a role the route admits gets past the gate: never 401 or 403', async () => {
      const { server } = suite;
      for (const route of ROUTES) {
        for (const role of ROLES.filter((r) => allows(r, route.access))) {
          // A route naming a resource names one that does not exist, so nothing of the owner's changes.
          const { path, body } = route.withId ? route.withId(UNKNOWN_ID) : route.request(owned);
          const response = await call(server, route.method, path, { key: keys.get(role)!, body });
          assert.ok(![401, 403].includes(response.status), `${role}: ${route.method} ${route.pattern} → ${response.status} ${response.text}`);
        }
      }
    });

    test('GET /keys/current shows every key its own role, never its text', async () => {
      const { server } = suite;
      for (const role of ROLES) {
        const response = await call(server, 'GET', '/keys/current', { key: keys.get(role)! });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.data.attributes.role, role);
        assert.equal(response.body.data.attributes.key, undefined);
        assert.ok(!response.text.includes(keys.get(role)!));
      }
    });
  });
}
