// Every published CIP-19, CIP-30 and EIP-191 vector, through the verifiers the
// proof route uses.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { blake2b } from '@noble/hashes/blake2.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { encode } from 'cborg';
import { encodeAddress, parseAddress, verifyCardanoSignature, verifyEthereumSignature } from '../../src/extension/wallets/index.js';
import { loadVectors } from '../chips/vectors.js';

const cip19 = loadVectors('cardano_cip19_addresses.json');
const cip30 = loadVectors('cardano_cip30.json');
const eip191 = loadVectors('ethereum_personal_sign.json');

describe('CIP-19 addresses', () => {
  for (const v of cip19.vectors) {
    test(`${v.address.slice(0, 24)}… type ${v.type}`, () => {
      const parsed = parseAddress(v.address);
      assert.ok(parsed);
      assert.equal(Buffer.from(parsed.bytes).toString('hex'), v.address_hex);
      assert.equal(parsed.type, v.type);
      assert.equal(parsed.networkId, v.network_id);
      assert.equal(encodeAddress(parsed), v.address);
      const keyHash = v.type === 14 ? v.stake_key_hash : v.payment_key_hash;
      assert.equal(parsed.keyHash ? Buffer.from(parsed.keyHash).toString('hex') : null, keyHash);
    });
  }
  test('the published verification keys hash to the credentials they bind', () => {
    assert.equal(Buffer.from(blake2b(Buffer.from(cip19.payment_vk_hex, 'hex'), { dkLen: 28 })).toString('hex'), cip19.payment_key_hash);
    assert.equal(Buffer.from(blake2b(Buffer.from(cip19.stake_vk_hex, 'hex'), { dkLen: 28 })).toString('hex'), cip19.stake_key_hash);
  });
  test('refused: a prefix that contradicts the header, bad checksums, non-addresses', () => {
    const base = cip19.vectors.find((v: any) => v.type === 0 && v.network_id === 1).address as string;
    assert.equal(parseAddress(base.slice(0, -1) + (base.endsWith('x') ? 'y' : 'x')), null);
    assert.equal(parseAddress(base.replace(/^addr1/, 'addr_test1')), null);
    for (const text of ['', 'addr1', 'hello', '0x14791697260E4c9A71f18484C9f997B308e59325', 'addr1' + 'q'.repeat(2000)])
      assert.equal(parseAddress(text), null, text);
  });
});

describe('CIP-30 signData', () => {
  for (const v of cip30.vectors) {
    test(`${v.id}: ${v.derived.strict_verdict ? 'valid' : v.derived.strict_reason}`, () => {
      const verdict = verifyCardanoSignature({ address: v.address ?? v.derived.header_address, message: v.message, signature: v.signature, key: v.key });
      assert.equal(verdict.ok, v.expected_valid);
      const expected = { ok: 'ok', 'claimed-address-differs-from-header-address': 'address-mismatch', 'bad-signature': 'bad-signature' }[
        v.derived.strict_reason as string
      ];
      assert.equal(verdict.ok ? 'ok' : verdict.reason, expected);
    });
  }
  const valid = cip30.vectors.find((v: any) => v.id === 'cvd-enterprise-valid');
  const proof = { address: valid.address, message: valid.message, signature: valid.signature, key: valid.key };
  test('each strict rule refuses with its reason', () => {
    assert.deepEqual(verifyCardanoSignature({ ...proof, message: 'Hello world!' }), { ok: false, reason: 'payload-mismatch' });
    assert.deepEqual(verifyCardanoSignature({ ...proof, networkId: 0 }), { ok: false, reason: 'network-mismatch' });
    assert.deepEqual(verifyCardanoSignature({ ...proof, networkId: 1 }), { ok: true });
    const other = cip30.vectors.find((v: any) => v.id === 'cvd-base-payment-key-valid');
    assert.deepEqual(verifyCardanoSignature({ ...proof, key: other.key }), { ok: false, reason: 'bad-signature' });
    for (const signature of ['', 'zz', '80', proof.signature.slice(0, -2), proof.signature + '00']) {
      assert.deepEqual(verifyCardanoSignature({ ...proof, signature }), { ok: false, reason: 'malformed-signature' }, signature);
    }
    for (const key of ['', 'a0', proof.key.slice(0, -2)])
      assert.deepEqual(verifyCardanoSignature({ ...proof, key }), { ok: false, reason: 'malformed-key' }, key);
    assert.deepEqual(verifyCardanoSignature({ ...proof, address: 'addr1nothing' }), { ok: false, reason: 'invalid-address' });
  });
  test('a script address is refused, and an algorithm other than EdDSA', () => {
    // Built here with a fresh key: the header names a script-credential enterprise address.
    const secret = ed25519.utils.randomSecretKey();
    const pub = ed25519.getPublicKey(secret);
    const script = Uint8Array.from([0x71, ...blake2b(pub, { dkLen: 28 })]);
    const sign = (alg: number, address: Uint8Array) => {
      const protectedBytes = encode(
        new Map<unknown, unknown>([
          [1, alg],
          ['address', address],
        ]),
      );
      const payload = new TextEncoder().encode('m');
      const sig = ed25519.sign(encode(['Signature1', protectedBytes, new Uint8Array(0), payload]), secret);
      return Buffer.from(encode([protectedBytes, new Map([['hashed', false]]), payload, sig])).toString('hex');
    };
    const key = Buffer.from(
      encode(
        new Map<number, unknown>([
          [1, 1],
          [3, -8],
          [-1, 6],
          [-2, pub],
        ]),
      ),
    ).toString('hex');
    const scriptText = encodeAddress({ bytes: script, type: 7, networkId: 1, keyHash: null, role: null });
    assert.deepEqual(verifyCardanoSignature({ address: scriptText, message: 'm', signature: sign(-8, script), key }), { ok: false, reason: 'script-address' });
    const enterprise = Uint8Array.from([0x61, ...blake2b(pub, { dkLen: 28 })]);
    const enterpriseText = encodeAddress({ bytes: enterprise, type: 6, networkId: 1, keyHash: null, role: null });
    assert.deepEqual(verifyCardanoSignature({ address: enterpriseText, message: 'm', signature: sign(-8, enterprise), key }), { ok: true });
    assert.deepEqual(verifyCardanoSignature({ address: enterpriseText, message: 'm', signature: sign(-7, enterprise), key }), {
      ok: false,
      reason: 'unsupported-algorithm',
    });
    // Signed correctly, but the address belongs to another key.
    const foreign = Uint8Array.from([0x61, ...blake2b(ed25519.getPublicKey(ed25519.utils.randomSecretKey()), { dkLen: 28 })]);
    const foreignText = encodeAddress({ bytes: foreign, type: 6, networkId: 1, keyHash: null, role: null });
    assert.deepEqual(verifyCardanoSignature({ address: foreignText, message: 'm', signature: sign(-8, foreign), key }), { ok: false, reason: 'key-mismatch' });
  });
});

describe('EIP-191 personal_sign', () => {
  for (const v of eip191.vectors) {
    test(`${v.id}: ${v.expected_valid ? 'valid' : v.expected_reason}`, async () => {
      const message = v.message_encoding === 'hex-bytes' ? { raw: v.message } : v.message;
      const verdict = await verifyEthereumSignature({ address: v.address, message, signature: v.signature });
      assert.equal(verdict.ok, v.expected_valid);
      if (!verdict.ok) assert.equal(verdict.reason, v.signature.length === 6 ? 'malformed-signature' : 'bad-signature');
    });
  }
  // secp256k1's group order: s and n - s both verify, only s <= n/2 is canonical (EIP-2).
  const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const valid = eip191.vectors.filter((v: any) => v.expected_valid);
  const messageOf = (v: any) => (v.message_encoding === 'hex-bytes' ? { raw: v.message } : v.message);

  test('refused as malformed: the high-s twin of each valid signature (v flipped), which recovers the same signer', async () => {
    for (const v of valid) {
      const r = v.signature.slice(2, 66);
      const s = BigInt('0x' + v.signature.slice(66, 130));
      const flipped = Number.parseInt(v.signature.slice(130), 16) === 27 ? '1c' : '1b';
      const twin = `0x${r}${(N - s).toString(16).padStart(64, '0')}${flipped}`;
      assert.deepEqual(
        await verifyEthereumSignature({ address: v.address, message: messageOf(v), signature: twin }),
        { ok: false, reason: 'malformed-signature' },
        v.id,
      );
    }
  });

  test('refused as malformed: 129 hex digits with a one-digit v; accepted: v as 0/1 as well as 27/28', async () => {
    for (const v of valid) {
      const bit = Number.parseInt(v.signature.slice(130), 16) - 27;
      const short = v.signature.slice(0, 130) + String(bit);
      assert.deepEqual(
        await verifyEthereumSignature({ address: v.address, message: messageOf(v), signature: short }),
        { ok: false, reason: 'malformed-signature' },
        v.id,
      );
      const zeroOne = v.signature.slice(0, 130) + '0' + String(bit);
      assert.deepEqual(await verifyEthereumSignature({ address: v.address, message: messageOf(v), signature: zeroOne }), { ok: true }, v.id);
    }
  });

  test('refused: a malformed address or a non-hex signature', async () => {
    const v = eip191.vectors[0];
    assert.deepEqual(await verifyEthereumSignature({ address: '0x1234', message: v.message, signature: v.signature }), {
      ok: false,
      reason: 'invalid-address',
    });
    assert.deepEqual(await verifyEthereumSignature({ address: v.address, message: v.message, signature: 'nothex' }), {
      ok: false,
      reason: 'malformed-signature',
    });
  });
});
