// GET {ext}/verifications/{id}: VRF_ ids and UUIDs, the exact errors (docs/extension.md#ids),
// what the object shows (catalog links, ownership null until proven), and which
// verifications the public sees (genuine ones of the base URL's mode).
import assert from 'node:assert/strict';
import { cliActor } from '../../src/audit/record.js';
import { describe, test } from 'node:test';
import { linkTag } from '../../src/extension/catalog/service.js';
import { verificationUuid } from '../../src/verifications/verification-ids.js';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { catalog, ext, genuineScan, replayedScan } from './helpers.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

for (const kind of DATABASES) {
  describe(`extension verification lookup (${kind})`, () => {
    const suite = sharedServer(kind);

    test('a genuine production verification by VRF_ id and by UUID: every field of the verification object', async () => {
      const { server, world } = suite;
      const links = await catalog(server, world);
      const scanned = await genuineScan(server, world, 'production', links);
      const byVrf = await ext(server, 'GET', `/verifications/${scanned.publicId}`);
      assert.equal(byVrf.status, 200, byVrf.text);
      assert.match(byVrf.headers.get('content-type')!, /^application\/json/);
      const body = byVrf.body;
      assert.deepEqual(Object.keys(body).sort(), [
        'country',
        'created_at',
        'id',
        'note',
        'ownership',
        'product',
        'resource_url',
        'tamper',
        'token',
        'verification_id',
        'verified_at',
      ]);
      assert.match(body.id, UUID_V4);
      assert.equal(body.id, verificationUuid(scanned.id));
      assert.equal(body.verification_id, scanned.publicId);
      assert.match(body.verified_at, ISO);
      assert.equal(body.created_at, body.verified_at);
      assert.equal(body.resource_url, null);
      assert.equal(body.note, null);
      assert.equal(body.country, null);
      assert.equal(body.ownership, null);
      assert.equal(body.tamper, null);
      assert.deepEqual(body.product, { id: links.product, name: 'Jacket', image_url: 'https://brand.example/jacket.png', description: 'Waxed cotton' });
      assert.deepEqual(body.token, {
        data: { policy_id: 'a0'.repeat(28), asset_id: 'a0'.repeat(28) + '4a61636b657431' },
        name: 'Tapproof Jacket #1',
        symbol: 'JKT',
        blockchain_type: 'cardano',
        contract_address: null,
        supply: 1,
      });
      const byUuid = await ext(server, 'GET', `/verifications/${body.id}`);
      assert.equal(byUuid.status, 200);
      assert.deepEqual(byUuid.body, body);
      assert.deepEqual((await ext(server, 'GET', `/verifications/${body.id.toUpperCase()}`)).body, body);
    });

    test('an unlinked tag shows product and token null; an ethereum token shows {token_id, standard}', async () => {
      const { server, world } = suite;
      const plain = await genuineScan(server, world);
      const r = await ext(server, 'GET', `/verifications/${plain.publicId}`);
      assert.equal(r.body.product, null);
      assert.equal(r.body.token, null);
      const { token } = await catalog(server, world, 'production', {
        chain: 'ethereum',
        name: 'Watch',
        symbol: 'WTC',
        supply: 100,
        contract_address: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
        token_id: '7',
        standard: 'erc1155',
      });
      await linkTag(server.ctx, plain.tagId, { token }, cliActor());
      const linked = await ext(server, 'GET', `/verifications/${plain.publicId}`);
      assert.deepEqual(linked.body.token, {
        data: { token_id: '7', standard: 'erc1155' },
        name: 'Watch',
        symbol: 'WTC',
        blockchain_type: 'ethereum',
        contract_address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
        supply: 100,
      });
    });

    test('malformed ids → 400 Invalid verification ID format (VRF_ + 5 and 129 characters, other prefixes, bad UUIDs)', async () => {
      const { server } = suite;
      for (const id of [
        'VRF_abcde',
        'VRF_' + 'a'.repeat(129),
        'vrf_abcdefghijklmnopqrstuv',
        'VRF_abc-def',
        'abc',
        '123e4567-e89b-12d3-a456-42661417400',
        '%20',
        'VRF_abcdef%00',
      ]) {
        const r = await ext(server, 'GET', `/verifications/${id}`);
        assert.equal(r.status, 400, id);
        assert.deepEqual(r.body, { error: 'Invalid verification ID format' }, id);
      }
    });

    test('well-formed unknown ids → 404 Verification not found (VRF_ + 6 and 128 characters, unknown UUIDs)', async () => {
      const { server } = suite;
      for (const id of [
        'VRF_abcdef',
        'VRF_' + 'a'.repeat(128),
        'VRF_' + 'a'.repeat(22),
        '123e4567-e89b-12d3-a456-426614174000',
        '123e4567-e89b-42d3-a456-426614174000',
      ]) {
        const r = await ext(server, 'GET', `/verifications/${id}`);
        assert.equal(r.status, 404, id);
        assert.deepEqual(r.body, { error: 'Verification not found' });
      }
    });

    test('a replayed (not genuine) verification is not shown: 404', async () => {
      const { server, world } = suite;
      const replayed = await replayedScan(server, world);
      assert.equal(replayed.reason, 'replayed');
      assert.deepEqual((await ext(server, 'GET', `/verifications/${replayed.publicId}`)).body, { error: 'Verification not found' });
    });

    test('sandbox verifications appear only under /ext/sandbox, production ones only under /ext', async () => {
      const { server, world } = suite;
      const sandbox = await genuineScan(server, world, 'sandbox');
      const production = await genuineScan(server, world, 'production');
      assert.equal((await ext(server, 'GET', `/verifications/${sandbox.publicId}`)).status, 404);
      assert.equal((await ext(server, 'GET', `/verifications/${production.publicId}`, { mode: 'sandbox' })).status, 404);
      const seen = await ext(server, 'GET', `/verifications/${sandbox.publicId}`, { mode: 'sandbox' });
      assert.equal(seen.status, 200);
      assert.equal(seen.body.verification_id, sandbox.publicId);
      assert.equal((await ext(server, 'GET', `/verifications/${verificationUuid(sandbox.id)}`, { mode: 'sandbox' })).status, 200);
      assert.equal((await ext(server, 'GET', `/verifications/${verificationUuid(sandbox.id)}`)).status, 404);
    });

    test('unknown extension paths → 404 {error}; other methods → 404 {error}', async () => {
      const { server } = suite;
      const r = await ext(server, 'GET', '/nothing');
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { error: 'Not Found' });
      assert.equal(r.headers.get('access-control-allow-origin'), '*');
    });
  });
}
