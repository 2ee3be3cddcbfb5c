// POST {ext}/verifications/{id}/proof: its three errors exactly (docs/extension.md#proofs), body
// rules, and single use under concurrency (one proof per challenge).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DATABASES, sharedServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { ETHEREUM_TOKEN, catalog, ext, genuineScan } from './helpers.js';

const INVALID = { error: 'Invalid or expired challenge' };
const SIGNATURE = { error: 'Signature verification failed' };

async function ethereumChallenge(server: TestServer, world: SeededTeam) {
  const scanned = await genuineScan(server, world, 'production', await catalog(server, world, 'production', ETHEREUM_TOKEN));
  const owner = privateKeyToAccount(generatePrivateKey());
  const challenge = (await ext(server, 'POST', `/verifications/${scanned.publicId}/challenge`, { body: { address: owner.address } })).body;
  const path = `/verifications/${scanned.publicId}/proof`;
  return { scanned, owner, challenge, path };
}

async function cardanoChallenge(server: TestServer, world: SeededTeam) {
  const scanned = await genuineScan(server, world, 'production', await catalog(server, world));
  const challenge = (await ext(server, 'POST', `/verifications/${scanned.publicId}/challenge`)).body;
  return { scanned, challenge, path: `/verifications/${scanned.publicId}/proof` };
}

for (const kind of DATABASES) {
  describe(`extension proofs (${kind})`, () => {
    const suite = sharedServer(kind);

    test("a stranger's key, another address, a garbage or oversized signature → Signature verification failed", async () => {
      const { server, world } = suite;
      const stranger = privateKeyToAccount(generatePrivateKey());
      const attempts = async (make: (c: Awaited<ReturnType<typeof ethereumChallenge>>) => Promise<Record<string, unknown>>) => {
        const c = await ethereumChallenge(server, world);
        return ext(server, 'POST', c.path, { body: await make(c) });
      };
      const cases = [
        // The owner's address, the stranger's signature.
        attempts(async (c) => ({
          session_id: c.challenge.session_id,
          address: c.owner.address,
          signature: await stranger.signMessage({ message: c.challenge.message }),
        })),
        // The stranger signs the owner's message with their own address: the message names another one.
        attempts(async (c) => ({
          session_id: c.challenge.session_id,
          address: stranger.address,
          signature: await stranger.signMessage({ message: c.challenge.message }),
        })),
        // The owner signs another message.
        attempts(async (c) => ({
          session_id: c.challenge.session_id,
          address: c.owner.address,
          signature: await c.owner.signMessage({ message: c.challenge.message + ' ' }),
        })),
        attempts(async (c) => ({ session_id: c.challenge.session_id, address: c.owner.address, signature: '0x1234' })),
        attempts(async (c) => ({ session_id: c.challenge.session_id, address: c.owner.address, signature: '0x' + 'ff'.repeat(4000) })),
        attempts(async (c) => ({ session_id: c.challenge.session_id, address: c.owner.address, signature: 'not hex at all' })),
        attempts(async (c) => ({
          session_id: c.challenge.session_id,
          address: 'garbage',
          signature: await c.owner.signMessage({ message: c.challenge.message }),
        })),
        attempts(async (c) => ({
          session_id: c.challenge.session_id,
          address: c.owner.address.toLowerCase().replace('0x', '0X'),
          signature: await c.owner.signMessage({ message: c.challenge.message }),
        })),
      ];
      for (const r of await Promise.all(cases)) {
        assert.equal(r.status, 400, r.text);
        assert.deepEqual(r.body, SIGNATURE);
      }
    });

    test('cardano: malformed CBOR, hex or keys → Signature verification failed, not a crash', async () => {
      const { server, world } = suite;
      for (const [signature, key] of [
        ['zz', 'zz'],
        ['84a0', 'a0'],
        ['', ''],
        ['ff'.repeat(6000), '00'],
      ]) {
        const c = await cardanoChallenge(server, world);
        const r = await ext(server, 'POST', c.path, {
          body: {
            session_id: c.challenge.session_id,
            address: 'addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3x',
            signature,
            key,
            blockchain_type: 'cardano',
          },
        });
        assert.equal(r.status, 400, r.text);
        assert.deepEqual(r.body, SIGNATURE);
      }
    });

    test("unknown, malformed, another verification's, expired and used challenges → Invalid or expired challenge", async () => {
      const { server, world } = suite;
      const a = await ethereumChallenge(server, world);
      const b = await ethereumChallenge(server, world);
      const sign = (c: typeof a) => c.owner.signMessage({ message: c.challenge.message });
      const proof = async (c: typeof a, sessionId: string) => ({ session_id: sessionId, address: c.owner.address, signature: await sign(c) });
      for (const sessionId of [randomUUID(), 'not-a-uuid', b.challenge.session_id]) {
        const r = await ext(server, 'POST', a.path, { body: await proof(a, sessionId) });
        assert.equal(r.status, 400, sessionId);
        assert.deepEqual(r.body, INVALID);
      }
      // Used: the first proof took it (here with a bad signature); the next one finds it used.
      const bad = { session_id: a.challenge.session_id, address: a.owner.address, signature: '0x00' };
      assert.deepEqual((await ext(server, 'POST', a.path, { body: bad })).body, SIGNATURE);
      assert.deepEqual((await ext(server, 'POST', a.path, { body: await proof(a, a.challenge.session_id) })).body, INVALID);
      // Expired: the server's clock moved past the challenge's five minutes.
      server.clock.advance(5 * 60 * 1000);
      assert.deepEqual((await ext(server, 'POST', b.path, { body: await proof(b, b.challenge.session_id) })).body, INVALID);
    });

    test('concurrent proofs with one challenge: exactly one is judged, the others are Invalid or expired challenge', async () => {
      const { server, world } = suite;
      const c = await ethereumChallenge(server, world);
      const stranger = privateKeyToAccount(generatePrivateKey());
      const body = { session_id: c.challenge.session_id, address: c.owner.address, signature: await stranger.signMessage({ message: c.challenge.message }) };
      const answers = await Promise.all(Array.from({ length: 12 }, () => ext(server, 'POST', c.path, { body })));
      assert.equal(answers.filter((r) => r.body?.error === SIGNATURE.error).length, 1);
      assert.equal(answers.filter((r) => r.body?.error === INVALID.error).length, 11);
    });

    test('bodies: not objects, missing fields, wrong types, unknown fields, bad blockchain_type, cardano without key → Validation failed', async () => {
      const { server, world } = suite;
      const c = await ethereumChallenge(server, world);
      for (const body of ['[]', '"x"', '1', 'null'])
        assert.deepEqual((await ext(server, 'POST', c.path, { body })).body, {
          error: 'Validation failed',
          details: [{ field: 'body', message: 'must be a JSON object' }],
        });
      assert.deepEqual((await ext(server, 'POST', c.path)).body, {
        error: 'Validation failed',
        details: [{ field: 'body', message: 'must be a JSON object' }],
      });
      assert.deepEqual((await ext(server, 'POST', c.path, { body: '{"session_id"' })).body, {
        error: 'Validation failed',
        details: [{ field: 'body', message: 'is not valid JSON' }],
      });
      const wrong = await ext(server, 'POST', c.path, { body: { session_id: 1, address: null, extra: 1, blockchain_type: 'solana', key: 5 } });
      assert.deepEqual(wrong.body, {
        error: 'Validation failed',
        details: [
          { field: 'extra', message: 'is not a field of a proof' },
          { field: 'session_id', message: 'must be a string' },
          { field: 'address', message: 'must be a string' },
          { field: 'signature', message: 'is required' },
          { field: 'blockchain_type', message: 'must be cardano or ethereum' },
          { field: 'key', message: 'must be a string' },
        ],
      });
      const noKey = await ext(server, 'POST', c.path, {
        body: { session_id: c.challenge.session_id, address: 'addr1', signature: 'aa', blockchain_type: 'cardano' },
      });
      assert.deepEqual(noKey.body, { error: 'Validation failed', details: [{ field: 'key', message: 'is required for cardano' }] });
      // An ethereum challenge answered as cardano: refused before the challenge is taken.
      const crossed = await ext(server, 'POST', c.path, {
        body: { session_id: c.challenge.session_id, address: 'addr1', signature: 'aa', key: 'bb', blockchain_type: 'cardano' },
      });
      assert.deepEqual(crossed.body, {
        error: 'Validation failed',
        details: [{ field: 'blockchain_type', message: "must be ethereum, the chain of the challenge's token" }],
      });
      const cardano = await cardanoChallenge(server, world);
      // blockchain_type defaults to ethereum.
      const defaulted = await ext(server, 'POST', cardano.path, {
        body: { session_id: cardano.challenge.session_id, address: 'addr1', signature: 'aa', key: 'bb' },
      });
      assert.deepEqual(defaulted.body, {
        error: 'Validation failed',
        details: [{ field: 'blockchain_type', message: "must be cardano, the chain of the challenge's token" }],
      });
      // None of these took the challenge.
      const fine = await ext(server, 'POST', c.path, { body: { session_id: c.challenge.session_id, address: c.owner.address, signature: '0x00' } });
      assert.deepEqual(fine.body, SIGNATURE);
    });

    test('path errors: malformed id → 400, unknown → 404, another mode → 404', async () => {
      const { server, world } = suite;
      const body = { session_id: randomUUID(), address: '0x' + '1'.repeat(40), signature: '0x00' };
      assert.deepEqual((await ext(server, 'POST', '/verifications/VRF_1/proof', { body })).body, { error: 'Invalid verification ID format' });
      assert.deepEqual((await ext(server, 'POST', '/verifications/VRF_123456/proof', { body })).body, { error: 'Verification not found' });
      const c = await ethereumChallenge(server, world);
      const r = await ext(server, 'POST', c.path, { mode: 'sandbox', body: { ...body, session_id: c.challenge.session_id } });
      assert.deepEqual(r.body, { error: 'Verification not found' });
    });
  });
}
