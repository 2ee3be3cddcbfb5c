// Every role of API key against every route of test/http/routes.ts, on both databases: a role the
// route does not admit gets 403 naming the roles that would do and changes nothing; a role it admits
// gets past the gate to the route's own answer; a key outside a route's reach (test/http/routes.ts) gets
// 403 naming why. The table's `access` column is written from the rules, so a
// route that declares something else, or a new route without a row, fails here.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ROLES, allows, type Role } from '../../src/http/access.js';
import { createKey } from '../../src/keys/service.js';
import { DATABASES, call, sharedServer } from '../kit/harness.js';
import { assertJsonApi } from '../kit/assertions.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { accessTable, peopleRoutes } from './access-table.js';
import { ROUTES, keyless, seedOwned, type Owned, type RouteRow } from '../http/routes.js';

/**
 * What the owner's own world answers a route's table request once past the gate, in table order: a route
 * naming a resource names an unknown one (404); the table's POST /tags names the owned tag's url, which
 * its own world has taken (422), and the bulk DELETE /tags before POST /writer/writes deleted the owned
 * tag that write names (404).
 */
const ownWorldStatus = (route: RouteRow): number =>
  route.withId ? 404 : route.method === 'POST' ? ({ '/tags': 422, '/writer/writes': 404 }[route.pattern] ?? 201) : 200;

/** The id of a resource that does not exist, of the kind each route names (past the role gate it is a 404). */
const UNKNOWN_ID = 'x_0000000000000000000000';

const publishedTable = (doc: string) => {
  const published = /<!-- access-table:start -->\n([\s\S]*?)\n<!-- access-table:end -->/.exec(
    readFileSync(join(import.meta.dirname, '../../docs', doc), 'utf8'),
  );
  assert.ok(published, `docs/${doc} has no access table between its markers`);
  return published[1];
};

test('docs/keys.md publishes exactly the route table: every operation, its roles, and which modes and people reach it', () => {
  assert.equal(publishedTable('keys.md'), accessTable(ROUTES));
});

test("docs/users.md publishes exactly the route table's rows for the team's people and the audit log", () => {
  assert.equal(publishedTable('users.md'), accessTable(peopleRoutes(ROUTES)));
});

for (const kind of DATABASES) {
  describe(`key roles over every route (${kind})`, () => {
    const suite = sharedServer(kind);
    let owned: Owned;
    const keys = new Map<Role, string>();
    const liveKeys = new Map<Role, string>();
    /** The key of `role` a route's owner would use: of production where the route reaches the whole team. */
    const keyFor = (route: RouteRow, role: Role) => (route.reach === 'team' ? liveKeys : keys).get(role)!;

    before(async () => {
      const { server } = suite;
      const team = await server.seedTeam({ name: 'roles' });
      owned = await seedOwned(server, team);
      for (const role of ROLES) {
        keys.set(role, (await createKey(server.ctx.db.kysely, team.teamId, 'sandbox', server.clock, { role })).key);
        liveKeys.set(role, (await createKey(server.ctx.db.kysely, team.teamId, 'production', server.clock, { role })).key);
      }
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
          const response = await call(server, route.method, path, { key: keyFor(route, role), body });
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

    test('a role the route admits gets past the gate: the route answers, never 401, 403 or 5xx', async () => {
      const { server } = suite;
      let passed = 0;
      for (const route of ROUTES.filter((r) => !keyless(r))) {
        for (const role of ROLES.filter((r) => allows(r, route.access))) {
          // A route naming a resource names one that does not exist, so nothing of the owner's changes.
          const { path, body } = route.withId ? route.withId(UNKNOWN_ID) : route.request(owned);
          const response = await call(server, route.method, path, { key: keyFor(route, role), body });
          assert.equal(response.status, ownWorldStatus(route), `${role}: ${route.method} ${route.pattern} → ${response.text}`);
          passed++;
        }
      }
      const personal = ROUTES.filter(keyless).length;
      assert.equal(
        passed,
        ROUTES.reduce((n, r) => n + (keyless(r) ? 0 : ROLES.filter((role) => allows(role, r.access)).length), 0),
      );
      assert.equal(personal, 3);
    });

    test('past the role gate, a sandbox key never reaches the team, and no key a person route: 403 naming why', async () => {
      const { server } = suite;
      const refusals: string[] = [];
      for (const route of ROUTES.filter((r) => r.reach !== undefined)) {
        const { path, body } = route.request(owned);
        const tries = route.reach === 'team' ? [keys.get('admin')!] : [keys.get('admin')!, liveKeys.get('admin')!];
        for (const key of tries) {
          const response = await call(server, route.method, path, { key, body });
          assert.equal(response.status, 403, response.text);
          refusals.push(`${route.method} ${route.pattern} ${key.slice(0, 8)}: ${response.body.errors[0].title}`);
        }
      }
      assert.deepEqual(refusals, [
        'GET /users tp_sandb: A sandbox key acts in its sandbox only',
        'POST /users tp_sandb: A sandbox key acts in its sandbox only',
        'PATCH /users/:id tp_sandb: A sandbox key acts in its sandbox only',
        'POST /users/:id/reset tp_sandb: Only an admin signed in to the console may do this',
        'POST /users/:id/reset tp_live_: Only an admin signed in to the console may do this',
        'GET /profile/notifications tp_sandb: Only a person signed in to the console has this',
        'GET /profile/notifications tp_live_: Only a person signed in to the console has this',
        'PATCH /profile/notifications tp_sandb: Only a person signed in to the console has this',
        'PATCH /profile/notifications tp_live_: Only a person signed in to the console has this',
      ]);
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
