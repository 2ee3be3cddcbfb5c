// Real wallets for the end-to-end tests: an Ed25519 Cardano wallet that signs
// like CIP-30 `signData` (COSE_Sign1 over the original protected header, with a
// COSE_Key), built from @noble/curves, @noble/hashes, @scure/base and cborg.
import { ed25519 } from '@noble/curves/ed25519.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { bech32 } from '@scure/base';
import { encode } from 'cborg';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

export interface CardanoWallet {
  /** bech32 enterprise address (payment key hash) on mainnet. */
  address: string;
  addressBytes: Uint8Array;
  /** CIP-30 signData: `{signature, key}` in hex. */
  signData(message: string, options?: { hashed?: boolean; headerAddress?: Uint8Array }): { signature: string; key: string };
}

export function cardanoWallet(networkId = 1): CardanoWallet {
  const secret = ed25519.utils.randomSecretKey();
  const publicKey = ed25519.getPublicKey(secret);
  // CIP-19 enterprise address: header 0110 | network id, then the payment key hash.
  const addressBytes = new Uint8Array([0x60 | networkId, ...blake2b(publicKey, { dkLen: 28 })]);
  const address = bech32.encode(networkId === 1 ? 'addr' : 'addr_test', bech32.toWords(addressBytes), 1023);
  return {
    address,
    addressBytes,
    signData(message, options = {}) {
      const protectedHeader = encode(
        new Map<number | string, unknown>([
          [1, -8],
          ['address', options.headerAddress ?? addressBytes],
        ]),
      );
      const text = new TextEncoder().encode(message);
      const payload = options.hashed ? blake2b(text, { dkLen: 28 }) : text;
      const toSign = encode(['Signature1', protectedHeader, new Uint8Array(0), payload]);
      const signature = ed25519.sign(toSign, secret);
      const coseSign1 = encode([protectedHeader, new Map([['hashed', options.hashed ?? false]]), payload, signature]);
      const coseKey = encode(
        new Map<number, unknown>([
          [1, 1],
          [3, -8],
          [-1, 6],
          [-2, publicKey],
        ]),
      );
      return { signature: hex(coseSign1), key: hex(coseKey) };
    },
  };
}
