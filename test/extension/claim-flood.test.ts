// A URL's claim list cannot be flooded (docs/extension.md, Claims): one claim per verification
// and URL (a repeat answers the existing claim with 200, also under concurrent posts: one row),
// a per-IP budget for claim creation (TAPPROOF_CLAIMS_PER_HOUR, through the one rate limiter),
// and the list is oldest first, so the earliest 100 claims of a URL stay listed.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { DATABASES, randomIp, sharedServer } from '../kit/harness.js';
import { ext, genuineScan } from './helpers.js';

const resource = () => `https://landing.example/${randomBytes(6).toString('hex')}`;
const BUDGET = 120;

for (const kind of DATABASES) {
  describe(`claim floods (${kind})`, () => {
    const suite = sharedServer(kind, { TAPPROOF_TRUST_PROXY: 'true', TAPPROOF_CLAIMS_PER_HOUR: String(BUDGET) });
    const post = (body: unknown, ip: string) => ext(suite.server, 'POST', '/claims', { body, headers: { 'x-forwarded-for': ip } });
    const listed = async (url: string) => (await ext(suite.server, 'GET', `/claims?resource_url=${encodeURIComponent(url)}`)).body.claims.map((c: any) => c.id);

    test('150 posts of one verification on one URL from one IP: one claim (201, then 200 with it), then 429 past the budget; the owner stays listed first', async () => {
      const { server, world } = suite;
      const url = resource();
      const owner = await post({ resource_url: url, verification_id: (await genuineScan(server, world)).publicId, note: 'mine' }, randomIp());
      assert.equal(owner.status, 201);
      const flood = (await genuineScan(server, world)).publicId;
      const ip = randomIp();
      const answers = [];
      for (let i = 0; i < 150; i++) answers.push(await post({ resource_url: url, verification_id: flood, note: `spam ${i}` }, ip));
      assert.equal(answers[0]!.status, 201);
      const id = answers[0]!.body.id;
      for (const r of answers.slice(1, BUDGET)) {
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, { id, verification_id: flood });
      }
      for (const r of answers.slice(BUDGET)) {
        assert.equal(r.status, 429);
        assert.equal(r.text, 'Too Many Requests');
      }
      assert.deepEqual(await listed(url), [owner.body.id, id]);
      // Another IP still has its budget.
      assert.equal((await post({ resource_url: url, verification_id: flood }, randomIp())).status, 200);
    });

    test('20 identical posts at once → one row; one 201 and the others 200 with the same claim', async () => {
      const { server, world } = suite;
      const url = resource();
      const verification = await genuineScan(server, world);
      const answers = await Promise.all(Array.from({ length: 20 }, () => post({ resource_url: url, verification_id: verification.publicId }, randomIp())));
      assert.deepEqual(answers.map((r) => r.status).sort(), [...Array(19).fill(200), 201]);
      const ids = new Set(answers.map((r) => r.body.id));
      assert.equal(ids.size, 1);
      const rows = await server.ctx.db.kysely.selectFrom('claims').select('id').where('verification_id', '=', verification.id).execute();
      assert.deepEqual(
        rows.map((r) => r.id),
        [...ids],
      );
    });

    test('a URL with 101 claims lists its 100 oldest, oldest first', async () => {
      const { server, world } = suite;
      const url = resource();
      const ids: string[] = [];
      for (let i = 0; i < 101; i++) {
        const r = await post({ resource_url: url, verification_id: (await genuineScan(server, world)).publicId }, randomIp());
        assert.equal(r.status, 201);
        ids.push(r.body.id);
      }
      assert.deepEqual(await listed(url), ids.slice(0, 100));
    });
  });

  describe(`the claim budget per IP (${kind})`, () => {
    const suite = sharedServer(kind, { TAPPROOF_TRUST_PROXY: 'true', TAPPROOF_CLAIMS_PER_HOUR: '3' });

    test('TAPPROOF_CLAIMS_PER_HOUR=3: the 4th claim from one IP → 429 Too Many Requests; another IP and GET /claims go on', async () => {
      const { server, world } = suite;
      const ip = randomIp();
      const url = resource();
      for (let i = 0; i < 3; i++) {
        const r = await ext(server, 'POST', '/claims', {
          body: { resource_url: url, verification_id: (await genuineScan(server, world)).publicId },
          headers: { 'x-forwarded-for': ip },
        });
        assert.equal(r.status, 201);
      }
      const fourth = await ext(server, 'POST', '/claims', {
        body: { resource_url: url, verification_id: (await genuineScan(server, world)).publicId },
        headers: { 'x-forwarded-for': ip },
      });
      assert.equal(fourth.status, 429);
      assert.equal(fourth.text, 'Too Many Requests');
      const other = await ext(server, 'POST', '/claims', {
        body: { resource_url: url, verification_id: (await genuineScan(server, world)).publicId },
        headers: { 'x-forwarded-for': randomIp() },
      });
      assert.equal(other.status, 201);
      const list = await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent(url)}`, { headers: { 'x-forwarded-for': ip } });
      assert.equal(list.status, 200);
      assert.equal(list.body.claims.length, 4);
    });
  });
}
