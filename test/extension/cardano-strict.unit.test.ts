// RFC 8032 strictness of the Cardano signature check: a signature has no twin. The same
// signature with S + L (the group order added) verifies under a lenient check; it must not here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decode, encode } from 'cborg';
import { verifyCardanoSignature } from '../../src/extension/wallets/cardano.js';
import { cardanoWallet } from './wallets.js';

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const le = (bytes: Uint8Array) => bytes.reduceRight((n, b) => (n << 8n) | BigInt(b), 0n);
const toLe = (n: bigint) => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 255n));

test('a COSE_Sign1 whose S is replaced by S + L is a bad signature; the original passes', () => {
  const wallet = cardanoWallet();
  const message = 'tapproof challenge';
  const { signature, key } = wallet.signData(message);
  assert.deepEqual(verifyCardanoSignature({ address: wallet.address, message, signature, key }), { ok: true });

  const [protectedHeader, unprotected, payload, sig] = decode(Buffer.from(signature, 'hex'), { useMaps: true }) as [
    Uint8Array,
    Map<string, unknown>,
    Uint8Array,
    Uint8Array,
  ];
  const s = le(sig.subarray(32));
  assert.ok(s + L < 2n ** 256n);
  const twin = Buffer.concat([sig.subarray(0, 32), toLe(s + L)]);
  const forged = Buffer.from(encode([protectedHeader, unprotected, payload, twin])).toString('hex');
  assert.deepEqual(verifyCardanoSignature({ address: wallet.address, message, signature: forged, key }), { ok: false, reason: 'bad-signature' });

  // A key encoded with a non-canonical y (y + p, same point on a lenient decoder) is refused too.
  const keyMap = decode(Buffer.from(key, 'hex'), { useMaps: true }) as Map<number, unknown>;
  const x = keyMap.get(-2) as Uint8Array;
  const y = le(x) & ((1n << 255n) - 1n);
  const p = 2n ** 255n - 19n;
  if (y + p < 2n ** 255n) {
    const bent = toLe((y + p) | (le(x) & (1n << 255n)));
    keyMap.set(-2, bent);
    const badKey = Buffer.from(encode(keyMap)).toString('hex');
    assert.equal(verifyCardanoSignature({ address: wallet.address, message, signature, key: badKey }).ok, false);
  }
});
