// End to end with real keys: a genuine scan → claim → challenge → proof →
// ownership verified and visible in the lookup and the claim list; and the
// documented errors (docs/extension.md) for a stranger's key, another address, an expired or reused
// challenge, and a token not held.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { setHolding } from '../../src/extension/holdings/index.js';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { ETHEREUM_TOKEN, catalog, ext, genuineScan, holdings } from './helpers.js';
import { cardanoWallet } from './wallets.js';

for (const kind of DATABASES) {
  describe(`extension end to end, ethereum (${kind})`, () => {
    const suite = sharedServer(kind);

    test('scan → claim → challenge → proof → ownership verified in the lookup and the claim list', async () => {
      const { server, world } = suite;
      const held = holdings(server);
      const links = await catalog(server, world, 'production', ETHEREUM_TOKEN);
      const scanned = await genuineScan(server, world, 'production', links);
      const owner = privateKeyToAccount(generatePrivateKey());
      await held.give(links.token, owner.address);
      const resource = `https://brand.example/item/${Math.random().toString(36).slice(2)}`;
      const claim = await ext(server, 'POST', '/claims', { body: { resource_url: resource, verification_id: scanned.publicId } });
      assert.equal(claim.status, 201);
      const challenge = (await ext(server, 'POST', `/verifications/${scanned.publicId}/challenge`, { body: { address: owner.address } })).body;
      const signature = await owner.signMessage({ message: challenge.message });
      const proof = await ext(server, 'POST', `/verifications/${challenge.uuid}/proof`, {
        body: { session_id: challenge.session_id, address: owner.address.toLowerCase(), signature },
      });
      assert.equal(proof.status, 200, proof.text);
      assert.deepEqual(Object.keys(proof.body).sort(), ['ownership', 'request_id', 'success']);
      assert.equal(proof.body.success, true);
      assert.equal(typeof proof.body.request_id, 'string');
      assert.equal(proof.body.ownership.status, 'verified');
      assert.equal(proof.body.ownership.wallet_address, owner.address);
      assert.match(proof.body.ownership.verified_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      const shown = (await ext(server, 'GET', `/verifications/${scanned.publicId}`)).body;
      assert.deepEqual(shown.ownership, proof.body.ownership);
      const listed = (await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent(resource)}`)).body.claims;
      assert.deepEqual(listed[0].ownership, proof.body.ownership);
      const reused = await ext(server, 'POST', `/verifications/${scanned.publicId}/proof`, {
        body: { session_id: challenge.session_id, address: owner.address, signature },
      });
      assert.deepEqual(reused.body, { error: 'Invalid or expired challenge' });
    });

    test('a token not held → Address does not hold the required token; a transfer away before the proof too', async () => {
      const { server, world } = suite;
      const held = holdings(server);
      const links = await catalog(server, world, 'production', ETHEREUM_TOKEN);
      const owner = privateKeyToAccount(generatePrivateKey());
      const scanned = await genuineScan(server, world, 'production', links);
      const path = `/verifications/${scanned.publicId}`;
      const challenge = (await ext(server, 'POST', `${path}/challenge`, { body: { address: owner.address } })).body;
      const r = await ext(server, 'POST', `${path}/proof`, {
        body: { session_id: challenge.session_id, address: owner.address, signature: await owner.signMessage({ message: challenge.message }) },
      });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { error: 'Address does not hold the required token' });
      await held.give(links.token, owner.address);
      await held.take(links.token, owner.address);
      const again = (await ext(server, 'POST', `${path}/challenge`, { body: { address: owner.address } })).body;
      const r2 = await ext(server, 'POST', `${path}/proof`, {
        body: { session_id: again.session_id, address: owner.address, signature: await owner.signMessage({ message: again.message }) },
      });
      assert.deepEqual(r2.body, { error: 'Address does not hold the required token' });
      assert.equal((await ext(server, 'GET', path)).body.ownership, null);
    });

    /** A holder of the Ethereum token, a genuine production scan of an item linked to it, and a signed challenge. */
    async function holderWithChallenge() {
      const { server, world } = suite;
      const held = holdings(server);
      const links = await catalog(server, world, 'production', ETHEREUM_TOKEN);
      const owner = privateKeyToAccount(generatePrivateKey());
      await held.give(links.token, owner.address);
      const scanned = await genuineScan(server, world, 'production', links);
      const path = `/verifications/${scanned.publicId}`;
      const challenge = (await ext(server, 'POST', `${path}/challenge`, { body: { address: owner.address } })).body;
      const proof = { session_id: challenge.session_id, address: owner.address, signature: await owner.signMessage({ message: challenge.message }) };
      return { server, path, scanned, owner, challenge, proof };
    }

    test('an expired challenge → Invalid or expired challenge, even with a valid signature of a holder', async () => {
      const { server, path, proof } = await holderWithChallenge();
      server.clock.advance(5 * 60 * 1000); // the challenge's whole lifetime
      const r = await ext(server, 'POST', `${path}/proof`, { body: proof });
      assert.deepEqual(r.body, { error: 'Invalid or expired challenge' });
    });

    test('concurrent valid proofs with one challenge: exactly one succeeds', async () => {
      const { server, path, scanned, proof: body } = await holderWithChallenge();
      const answers = await Promise.all(Array.from({ length: 12 }, () => ext(server, 'POST', `${path}/proof`, { body })));
      assert.equal(answers.filter((r) => r.status === 200).length, 1, answers.map((r) => r.text).join('\n'));
      assert.ok(answers.filter((r) => r.status !== 200).every((r) => r.body.error === 'Invalid or expired challenge'));
      const rows = await server.ctx.db.kysely.selectFrom('ownerships').selectAll().where('verification_id', '=', scanned.id).execute();
      assert.equal(rows.length, 1);
    });

    test('a 65-byte signature with v as 0/1 (y parity) proves like 27/28; another v → Signature verification failed', async () => {
      const { server, world } = suite;
      const links = await catalog(server, world, 'production', ETHEREUM_TOKEN);
      const owner = privateKeyToAccount(generatePrivateKey());
      await holdings(server).give(links.token, owner.address);
      const withV = async (shift: number) => {
        const scanned = await genuineScan(server, world, 'production', links);
        const path = `/verifications/${scanned.publicId}`;
        const c = (await ext(server, 'POST', `${path}/challenge`, { body: { address: owner.address } })).body;
        const signature = await owner.signMessage({ message: c.message });
        const v = (parseInt(signature.slice(-2), 16) + shift).toString(16).padStart(2, '0');
        return ext(server, 'POST', `${path}/proof`, { body: { session_id: c.session_id, address: owner.address, signature: signature.slice(0, -2) + v } });
      };
      assert.equal((await withV(-27)).status, 200);
      assert.equal((await withV(0)).status, 200);
      for (const shift of [2, -25]) assert.deepEqual((await withV(shift)).body, { error: 'Signature verification failed' });
    });

    test('two challenges proven at once: one owner is recorded, the other proof is refused', async () => {
      const { server, world } = suite;
      const held = holdings(server);
      const links = await catalog(server, world, 'production', ETHEREUM_TOKEN);
      const [a, b] = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())];
      await held.give(links.token, a.address);
      await held.give(links.token, b.address);
      const scanned = await genuineScan(server, world, 'production', links);
      const path = `/verifications/${scanned.publicId}`;
      const bodies = [];
      for (const account of [a, b]) {
        const c = (await ext(server, 'POST', `${path}/challenge`, { body: { address: account.address } })).body;
        bodies.push({ session_id: c.session_id, address: account.address, signature: await account.signMessage({ message: c.message }) });
      }
      const answers = await Promise.all(bodies.map((body) => ext(server, 'POST', `${path}/proof`, { body })));
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, 400]);
      const winner = answers.find((r) => r.status === 200)!.body.ownership.wallet_address;
      assert.deepEqual(answers.find((r) => r.status === 400)!.body, { error: 'Ownership is held by another wallet' });
      assert.equal((await ext(server, 'GET', path)).body.ownership.wallet_address, winner);
      // The refused proof took its challenge when judged after the first owner was recorded, or left
      // it open when both were judged before (the write found the owner changed): one or two used.
      const used = await server.ctx.db.kysely
        .selectFrom('challenges')
        .select(['id', 'used_at'])
        .where(
          'id',
          'in',
          bodies.map((b) => b.session_id),
        )
        .execute();
      assert.ok([1, 2].includes(used.filter((c) => c.used_at !== null).length));
      assert.equal(used.length, 2);
      const proofs = await server.ctx.db.kysely.selectFrom('ownership_proofs').select('wallet_address').where('verification_id', '=', scanned.id).execute();
      assert.deepEqual(proofs, [{ wallet_address: winner }]);
    });
  });
}

for (const kind of DATABASES) {
  describe(`extension end to end, cardano (${kind})`, () => {
    const suite = sharedServer(kind);

    test('a CIP-30 wallet proves ownership (plain and hashed payloads); the lookup shows it', async () => {
      const { server, world } = suite;
      const held = holdings(server);
      for (const hashed of [false, true]) {
        const links = await catalog(server, world);
        const wallet = cardanoWallet();
        await held.give(links.token, wallet.address);
        const scanned = await genuineScan(server, world, 'production', links);
        const path = `/verifications/${scanned.publicId}`;
        const challenge = (await ext(server, 'POST', `${path}/challenge`)).body;
        assert.deepEqual(challenge.expected_holders, [wallet.address]);
        const signed = wallet.signData(challenge.message, { hashed });
        // The address as bech32, or as hex (both accepted: docs/extension.md#proofs).
        const address = hashed ? Buffer.from(wallet.addressBytes).toString('hex') : wallet.address;
        const r = await ext(server, 'POST', `${path}/proof`, { body: { session_id: challenge.session_id, address, ...signed, blockchain_type: 'cardano' } });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.ownership.wallet_address, wallet.address);
        assert.deepEqual((await ext(server, 'GET', path)).body.ownership, r.body.ownership);
      }
    });

    test("a stranger's key, another address, another message → Signature verification failed; not held → Address does not hold", async () => {
      const { server, world } = suite;
      const held = holdings(server);
      const links = await catalog(server, world);
      const owner = cardanoWallet();
      const stranger = cardanoWallet();
      await held.give(links.token, owner.address);
      const scanned = await genuineScan(server, world, 'production', links);
      const path = `/verifications/${scanned.publicId}`;
      const attempt = async (sign: (message: string) => { signature: string; key: string }, address = owner.address) => {
        const c = (await ext(server, 'POST', `${path}/challenge`)).body;
        return ext(server, 'POST', `${path}/proof`, { body: { session_id: c.session_id, address, ...sign(c.message), blockchain_type: 'cardano' } });
      };
      const refusals = [
        // The stranger signs, claiming the owner's address (their header names the owner's address too).
        await attempt((m) => stranger.signData(m, { headerAddress: owner.addressBytes })),
        // The stranger's own, valid signature, but for the owner's address.
        await attempt((m) => stranger.signData(m)),
        // The owner signs another message.
        await attempt((m) => owner.signData(m + ' ')),
        // The owner's signature, another claimed address.
        await attempt((m) => owner.signData(m), stranger.address),
      ];
      for (const r of refusals) assert.deepEqual(r.body, { error: 'Signature verification failed' }, r.text);
      // A valid signature of a wallet that does not hold the token.
      const notHeld = await attempt((m) => stranger.signData(m), stranger.address);
      assert.deepEqual(notHeld.body, { error: 'Address does not hold the required token' });
      assert.equal((await ext(server, 'GET', path)).body.ownership, null);
    });

    test('a testnet address on a mainnet deployment → Signature verification failed', async () => {
      const { server, world } = suite;
      const held = holdings(server);
      const links = await catalog(server, world);
      const wallet = cardanoWallet(0);
      await held.give(links.token, wallet.address);
      const scanned = await genuineScan(server, world, 'production', links);
      const c = (await ext(server, 'POST', `/verifications/${scanned.publicId}/challenge`)).body;
      const r = await ext(server, 'POST', `/verifications/${scanned.publicId}/proof`, {
        body: { session_id: c.session_id, address: wallet.address, ...wallet.signData(c.message), blockchain_type: 'cardano' },
      });
      assert.deepEqual(r.body, { error: 'Signature verification failed' });
    });
  });
}

for (const kind of DATABASES) {
  describe(`extension proofs with a holdings provider that cannot answer (${kind})`, () => {
    // Koios on a port where nothing listens: every question fails at once.
    const suite = sharedServer(kind, { TAPPROOF_CARDANO_HOLDINGS: 'koios', TAPPROOF_KOIOS_URL: 'http://127.0.0.1:9/api/v1' });

    test('→ 500 server error, try again later; the challenge stays usable; sandbox tokens still use the embedded table', async () => {
      const { server, world } = suite;
      const links = await catalog(server, world);
      const wallet = cardanoWallet();
      const scanned = await genuineScan(server, world, 'production', links);
      const path = `/verifications/${scanned.publicId}`;
      const c = (await ext(server, 'POST', `${path}/challenge`)).body;
      // The challenge is issued without the list of holders.
      assert.deepEqual(c.expected_holders, []);
      const body = { session_id: c.session_id, address: wallet.address, ...wallet.signData(c.message), blockchain_type: 'cardano' };
      for (let i = 0; i < 2; i++) {
        const r = await ext(server, 'POST', `${path}/proof`, { body });
        assert.equal(r.status, 500);
        assert.deepEqual(r.body, { error: 'server error, try again later' });
      }
      const row = await server.ctx.db.kysely.selectFrom('challenges').select('used_at').where('id', '=', c.session_id).executeTakeFirstOrThrow();
      assert.equal(row.used_at, null);

      // The sandbox's network is a test network (docs/wallets.md, Networks).
      const testnet = cardanoWallet(0);
      const sandboxLinks = await catalog(server, world, 'sandbox');
      await setHolding(server.ctx.db.kysely, sandboxLinks.token, testnet.address, 1n, server.ctx.clock);
      const sandbox = await genuineScan(server, world, 'sandbox', sandboxLinks);
      const sc = (await ext(server, 'POST', `/verifications/${sandbox.publicId}/challenge`, { mode: 'sandbox' })).body;
      assert.deepEqual(sc.expected_holders, [testnet.address]);
      const ok = await ext(server, 'POST', `/verifications/${sandbox.publicId}/proof`, {
        mode: 'sandbox',
        body: { session_id: sc.session_id, address: testnet.address, ...testnet.signData(sc.message), blockchain_type: 'cardano' },
      });
      assert.equal(ok.status, 200, ok.text);
    });
  });
}
