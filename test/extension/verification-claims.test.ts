// GET /api/v1/verifications/:id/claims: the pages a verification was claimed on (through the public
// extension API), newest first, for a key of the verification's team and mode only; at most the
// newest 100, with the count of all.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, DATABASES, sharedServer } from '../kit/harness.js';
import { ext, genuineScan } from './helpers.js';

const page = (path: string) => `https://landing.example/${path}/${Math.random().toString(36).slice(2)}`;

for (const kind of DATABASES) {
  describe(`a verification's claims (${kind})`, () => {
    // The cap test makes more claims from one address than the default hourly budget allows.
    const suite = sharedServer(kind, { TAPPROOF_CLAIMS_PER_HOUR: '1000' });

    test('every claim of the verification, newest first, as JSON:API resources; a repeated claim once; none of another verification', async () => {
      const { server, world } = suite;
      const scanned = await genuineScan(server, world);
      const other = await genuineScan(server, world);
      const claim = async (resourceUrl: string, note?: string) => {
        const r = await ext(server, 'POST', '/claims', { body: { resource_url: resourceUrl, verification_id: scanned.publicId, note } });
        assert.ok(r.status === 201 || r.status === 200, r.text);
        return r.body.id as string;
      };
      const [a, b, c] = [page('a'), page('b'), page('c')];
      const first = await claim(a, 'bought in Lyon');
      const second = await claim(b);
      const third = await claim(c, 'gift');
      // The same page again is the claim stored first, not a new one.
      assert.equal(await claim(a, 'again'), first);
      assert.equal((await ext(server, 'POST', '/claims', { body: { resource_url: a, verification_id: other.publicId } })).status, 201);

      const r = await call(server, 'GET', `/verifications/${scanned.id}/claims`, { key: world.production.key });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        r.body.data.map((d: any) => [d.type, d.id, d.attributes.resource_url, d.attributes.note]),
        [
          ['claims', third, c, 'gift'],
          ['claims', second, b, null],
          ['claims', first, a, 'bought in Lyon'],
        ],
      );
      for (const d of r.body.data) {
        assert.deepEqual(Object.keys(d.attributes), ['resource_url', 'note', 'created_at']);
        assert.match(d.attributes.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      }
      const times = r.body.data.map((d: any) => d.attributes.created_at);
      assert.deepEqual(times, [...times].sort().reverse());
      assert.deepEqual(r.body.meta, { total_count: 3 });
      // The extension API's list of a page shows the same claim at the same time.
      const listed = await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent(a)}`);
      assert.equal(listed.body.claims[0].created_at, r.body.data[2].attributes.created_at);

      const unclaimed = await genuineScan(server, world);
      const empty = await call(server, 'GET', `/verifications/${unclaimed.id}/claims`, { key: world.production.key });
      assert.equal(empty.status, 200, empty.text);
      assert.deepEqual(empty.body, { data: [], meta: { total_count: 0 } });
    });

    test("another team's, the other mode's, an unknown or a malformed id → 404", async () => {
      const { server, world } = suite;
      const scanned = await genuineScan(server, world);
      const sandbox = await genuineScan(server, world, 'sandbox');
      assert.equal((await ext(server, 'POST', '/claims', { body: { resource_url: page('x'), verification_id: scanned.publicId } })).status, 201);
      assert.equal(
        (await ext(server, 'POST', '/claims', { mode: 'sandbox', body: { resource_url: page('y'), verification_id: sandbox.publicId } })).status,
        201,
      );
      const stranger = await server.seedTeam({ name: 'stranger' });
      const refused = [
        [scanned.id, world.sandbox.key],
        [scanned.id, stranger.production.key],
        [sandbox.id, world.production.key],
        [sandbox.id, stranger.sandbox.key],
        ['vrf_0000000000000000000000', world.production.key],
        [scanned.publicId, world.production.key],
        ['not-an-id', world.production.key],
        [encodeURIComponent("vrf_' or 1=1 --"), world.production.key],
      ];
      for (const [id, key] of refused) {
        const r = await call(server, 'GET', `/verifications/${id}/claims`, { key });
        assert.equal(r.status, 404, `${id}: ${r.text}`);
        assert.deepEqual(
          r.body.errors.map((e: any) => e.status),
          ['404'],
        );
      }
      // Each mode's own key sees its verification's claim.
      assert.equal((await call(server, 'GET', `/verifications/${scanned.id}/claims`, { key: world.production.key })).body.meta.total_count, 1);
      assert.equal((await call(server, 'GET', `/verifications/${sandbox.id}/claims`, { key: world.sandbox.key })).body.meta.total_count, 1);
    });

    test('a verification claimed on more than 100 pages lists the newest 100 and counts them all', async () => {
      const { server, world } = suite;
      const scanned = await genuineScan(server, world);
      const ids: string[] = [];
      for (let i = 0; i < 101; i++) {
        const r = await ext(server, 'POST', '/claims', { body: { resource_url: page(`p${i}`), verification_id: scanned.publicId } });
        assert.equal(r.status, 201, r.text);
        ids.push(r.body.id);
      }
      const r = await call(server, 'GET', `/verifications/${scanned.id}/claims`, { key: world.production.key });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        r.body.data.map((d: any) => d.id),
        ids.slice(1).reverse(),
      );
      assert.deepEqual(r.body.meta, { total_count: 101 });
    });
  });
}
