// POST {ext}/verifications/{id}/challenge: the message each chain signs (EIP-4361;
// one printable ASCII line of at most 198 bytes), its 5-minute lifetime and
// 96-bit nonce, the request body's rules, and pruning of expired challenges.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseSiweMessage } from 'viem/siwe';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { CHALLENGE_LIFETIME_MICROS, ownershipLine } from '../../src/extension/challenges.js';
import { verificationUuid } from '../../src/verifications/verification-ids.js';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { ETHEREUM_TOKEN, catalog, ext, genuineScan, replayedScan } from './helpers.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const FIVE_MINUTES = 5 * 60 * 1000;

for (const kind of DATABASES) {
  describe(`extension challenges (${kind})`, () => {
    const suite = sharedServer(kind);

    test('cardano: one printable ASCII line ≤ 198 bytes with domain, verification id, token, network, nonce, issue and expiry', async () => {
      const { server, world } = suite;
      const links = await catalog(server, world);
      const scanned = await genuineScan(server, world, 'production', links);
      const r = await ext(server, 'POST', `/verifications/${scanned.publicId}/challenge`, { headers: { origin: 'https://shop.brand.example' } });
      assert.equal(r.status, 200, r.text);
      const c = r.body;
      assert.deepEqual(Object.keys(c).sort(), ['blockchain_type', 'expected_holders', 'expires_at', 'message', 'session_id', 'uuid']);
      assert.match(c.session_id, UUID_V4);
      assert.equal(c.uuid, verificationUuid(scanned.id));
      assert.equal(c.blockchain_type, 'cardano');
      assert.ok(Array.isArray(c.expected_holders));
      assert.match(c.message, /^[\x20-\x7e]+$/);
      assert.ok(Buffer.byteLength(c.message) <= 198, `${Buffer.byteLength(c.message)} bytes`);
      const m = /^shop\.brand\.example ownership (VRF_\w+) token (tok_\w+) network (\w+) nonce ([0-9A-Za-z]{17}) issued (\S+) expires (\S+)$/.exec(c.message);
      assert.ok(m, c.message);
      assert.equal(m[1], scanned.publicId);
      assert.equal(m[2], links.token);
      assert.equal(m[3], 'mainnet');
      assert.ok(62 ** 17 > 2 ** 96);
      assert.equal(Date.parse(m[6]!) - Date.parse(m[5]!), FIVE_MINUTES);
      assert.equal(Date.parse(c.expires_at), Date.parse(m[6]!));
      assert.match(c.expires_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000000Z$/);
      // Every challenge is new; by UUID path too.
      const again = await ext(server, 'POST', `/verifications/${c.uuid}/challenge`, { body: {} });
      assert.equal(again.status, 200);
      assert.notEqual(again.body.session_id, c.session_id);
      assert.notEqual(again.body.message.split(' nonce ')[1], c.message.split(' nonce ')[1]);
    });

    test('cardano: a long domain loses its leftmost labels to keep the line within 198 bytes', () => {
      const parts = {
        verificationId: 'VRF_' + 'a'.repeat(22),
        tokenId: 'tok_' + 'b'.repeat(22),
        network: 'preprod',
        nonce: 'c'.repeat(17),
        issuedAt: 1e15,
        expiresAt: 1e15 + 3e8,
      };
      const long = ownershipLine({ ...parts, domain: 'a-very-long-subdomain-name.another-level.brand-example.com' });
      assert.ok(Buffer.byteLength(long) <= 198);
      assert.match(long, /^another-level\.brand-example\.com ownership /);
      const huge = ownershipLine({ ...parts, domain: 'x'.repeat(100) });
      assert.equal(Buffer.byteLength(huge), 198);
    });

    test('ethereum: an EIP-4361 message naming the address, chain id, nonce, times and the verification as request id', async () => {
      const { server, world } = suite;
      const links = await catalog(server, world, 'production', ETHEREUM_TOKEN);
      const scanned = await genuineScan(server, world, 'production', links);
      const account = privateKeyToAccount(generatePrivateKey());
      const r = await ext(server, 'POST', `/verifications/${scanned.publicId}/challenge`, {
        body: { address: account.address.toLowerCase() },
        headers: { origin: 'https://shop.example:8443' },
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.blockchain_type, 'ethereum');
      assert.deepEqual(r.body.expected_holders, []);
      const siwe = parseSiweMessage(r.body.message);
      assert.equal(siwe.domain, 'shop.example:8443');
      assert.equal(siwe.address, account.address);
      assert.equal(siwe.chainId, 1);
      assert.equal(siwe.version, '1');
      assert.equal(siwe.requestId, scanned.publicId);
      assert.match(siwe.nonce!, /^[0-9A-Za-z]{17}$/);
      assert.equal(siwe.expirationTime!.getTime() - siwe.issuedAt!.getTime(), FIVE_MINUTES);
      assert.equal(siwe.expirationTime!.getTime(), Date.parse(r.body.expires_at));
      assert.deepEqual(siwe.resources, [`urn:tapproof:token:${links.token}`]);
      assert.match(r.body.message, new RegExp(links.token));
    });

    test('ethereum: an address given malformed or with a wrong EIP-55 checksum → Validation failed', async () => {
      const { server, world } = suite;
      const scanned = await genuineScan(server, world, 'production', await catalog(server, world, 'production', ETHEREUM_TOKEN));
      const path = `/verifications/${scanned.publicId}/challenge`;
      const badChecksum = '0x5FbDB2315678afecb367f032d93F642f64180aA3';
      for (const address of ['0x1234', badChecksum, 42, 'addr1qx']) {
        const r = await ext(server, 'POST', path, { body: { address } });
        assert.equal(r.status, 400, String(address));
        assert.deepEqual(r.body, {
          error: 'Validation failed',
          details: [{ field: 'address', message: 'must be 0x followed by 40 hex characters, with a valid EIP-55 checksum when mixed case' }],
        });
      }
      assert.equal((await ext(server, 'POST', path, { body: { address: badChecksum.toLowerCase() } })).status, 200);
    });

    test("the body: optional; uuid and verification_id must name the path's verification; unknown fields, non-objects → Validation failed", async () => {
      const { server, world } = suite;
      const scanned = await genuineScan(server, world, 'production', await catalog(server, world));
      const path = `/verifications/${scanned.publicId}/challenge`;
      const uuid = verificationUuid(scanned.id);
      assert.equal((await ext(server, 'POST', path, { body: { uuid, verification_id: scanned.publicId } })).status, 200);
      assert.equal((await ext(server, 'POST', path, { body: { uuid: uuid.toUpperCase() } })).status, 200);
      assert.equal((await ext(server, 'POST', path, { body: 'null' })).status, 200);
      const other = await genuineScan(server, world);
      const mismatch = await ext(server, 'POST', path, { body: { uuid: verificationUuid(other.id), verification_id: other.publicId, color: 'red' } });
      assert.equal(mismatch.status, 400);
      assert.deepEqual(mismatch.body, {
        error: 'Validation failed',
        details: [
          { field: 'color', message: 'is not a field of a challenge request' },
          { field: 'uuid', message: 'must be the UUID of the verification in the path' },
          { field: 'verification_id', message: 'must be the verification_id of the verification in the path' },
        ],
      });
      for (const body of ['[]', '"x"', '7'])
        assert.deepEqual((await ext(server, 'POST', path, { body })).body, {
          error: 'Validation failed',
          details: [{ field: 'body', message: 'must be a JSON object' }],
        });
      assert.deepEqual((await ext(server, 'POST', path, { body: '{"a":' })).body, {
        error: 'Validation failed',
        details: [{ field: 'body', message: 'is not valid JSON' }],
      });
      assert.deepEqual((await ext(server, 'POST', path, { body: { uuid: 5 } })).body, {
        error: 'Validation failed',
        details: [{ field: 'uuid', message: 'must be the UUID of the verification in the path' }],
      });
    });

    test('errors: malformed id → 400, unknown → 404, replayed → 404, no token linked → 400, other mode → 404', async () => {
      const { server, world } = suite;
      assert.deepEqual((await ext(server, 'POST', '/verifications/VRF_abc/challenge')).body, { error: 'Invalid verification ID format' });
      assert.deepEqual((await ext(server, 'POST', '/verifications/VRF_abcdefgh/challenge')).body, { error: 'Verification not found' });
      const replayed = await replayedScan(server, world);
      const r = await ext(server, 'POST', `/verifications/${replayed.publicId}/challenge`);
      assert.equal(r.status, 404);
      const plain = await genuineScan(server, world);
      const noToken = await ext(server, 'POST', `/verifications/${plain.publicId}/challenge`);
      assert.equal(noToken.status, 400);
      assert.deepEqual(noToken.body, { error: 'No token is linked to this verification' });
      const sandbox = await genuineScan(server, world, 'sandbox', await catalog(server, world, 'sandbox'));
      assert.equal((await ext(server, 'POST', `/verifications/${sandbox.publicId}/challenge`)).status, 404);
      assert.equal((await ext(server, 'POST', `/verifications/${sandbox.publicId}/challenge`, { mode: 'sandbox' })).status, 200);
    });

    test('a challenge issued over a minute after the last prune deletes every expired challenge; open ones stay', async () => {
      const { server, world } = suite;
      const scanned = await genuineScan(server, world, 'production', await catalog(server, world));
      const challenge = async () => (await ext(server, 'POST', `/verifications/${scanned.publicId}/challenge`)).body.session_id as string;
      const old = await challenge();
      // Past the old challenge's five minutes, and over a minute since any prune of this server.
      server.clock.advance(6 * 60 * 1000);
      const open = await challenge();
      const db = server.ctx.db.kysely;
      const { expires_at: openExpiry } = await db.selectFrom('challenges').select('expires_at').where('id', '=', open).executeTakeFirstOrThrow();
      // Expired ones left by other tests of this suite are gone too: none older than the new challenge's issue time.
      const issuedAt = openExpiry - CHALLENGE_LIFETIME_MICROS;
      assert.equal((await db.selectFrom('challenges').select('id').where('expires_at', '<', issuedAt).execute()).length, 0);
      const left = (await db.selectFrom('challenges').select('id').where('id', 'in', [open, old]).execute()).map((r) => r.id);
      assert.deepEqual(left, [open]);
    });
  });
}
