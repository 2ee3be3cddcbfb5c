// A CIP-30 wallet for tests, shaped like `window.cardano.<name>`, that signs with an Ed25519 key it is
// given: `signData` answers a real CIP-8 COSE_Sign1 and COSE_Key, laid out as Eternl, Lace and Nami lay
// them out (protected header {alg: EdDSA, address}, unprotected {hashed: false}, the payload attached),
// so the platform's strict verifier judges exactly what a real wallet would send (docs/wallets.md).
import { ed25519 } from '@noble/curves/ed25519.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { encode } from 'cborg';
import { cardanoBech32 } from '../wallets/bech32.js';
import type { Cip30Api } from '../wallets/cardano.js';
import { fromHex, secretBytes, toHex } from './bytes.js';

export interface CardanoTestWalletOptions {
  /** The Ed25519 secret key (its 32-byte seed), hex or bytes. A test key only: it lives in the page. */
  secretKey: string | Uint8Array;
  /** 0 for the test networks (preprod, preview: what a sandbox challenge names), 1 for mainnet. Default 0. */
  networkId?: 0 | 1;
  /** The name the landing element shows ("Signs with … (Cardano)."). */
  name?: string;
  /** Refuse every signature, as a visitor pressing "Decline" would (CIP-30 DataSignError UserDeclined). */
  decline?: boolean;
}

/** The CIP-30 API `enable()` resolves to: the calls a dApp makes, over one enterprise address. */
export interface Cip30TestApi extends Cip30Api {
  getNetworkId(): Promise<number>;
  getUnusedAddresses(): Promise<string[]>;
  getRewardAddresses(): Promise<string[]>;
  getUtxos(): Promise<string[] | null>;
  getCollateral(): Promise<string[] | null>;
  getBalance(): Promise<string>;
  getExtensions(): Promise<{ cip: number }[]>;
  signTx(tx: string): Promise<string>;
  submitTx(tx: string): Promise<string>;
}

export interface CardanoTestWallet {
  name: string;
  icon: string;
  apiVersion: string;
  supportedExtensions: { cip: number }[];
  isEnabled(): Promise<boolean>;
  enable(): Promise<Cip30TestApi>;
  /** Its address in bech32 (`addr_test1v…`): what `tapproof holdings set --address` takes. */
  readonly address: string;
  /** The same address as the hex bytes CIP-30 calls use. */
  readonly addressHex: string;
  /** Set to true or false at any time: whether the next signData is declined. */
  decline: boolean;
}

export const CARDANO_TEST_WALLET_NAME = 'Tapproof test wallet';

// A grey square with a "T": CIP-30 wants an icon URI, and a data URI loads nothing from anywhere.
const ICON =
  'data:image/svg+xml,%3Csvg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"%3E%3Crect width="32" height="32" rx="6" fill="%23555"/%3E%3Cpath d="M9 9h14v3h-5.5v12h-3V12H9z" fill="%23fff"/%3E%3C/svg%3E';

/** A CIP-30 error as wallets throw it: a plain `{code, info}` object (APIError, DataSignError). */
const cip30Error = (code: number, info: string) => Object.assign(new Error(info), { code, info });

/** CIP-8's protected header: the algorithm and the address that signs, encoded once and signed as these bytes. */
export const protectedHeader = (address: Uint8Array) =>
  encode(
    new Map<number | string, unknown>([
      [1, -8],
      ['address', address],
    ]),
  );

/** CIP-30's COSE_Key for an Ed25519 public key: kty OKP, alg EdDSA, crv Ed25519, x. */
export const coseKey = (publicKey: Uint8Array) =>
  encode(
    new Map<number, unknown>([
      [1, 1],
      [3, -8],
      [-1, 6],
      [-2, publicKey],
    ]),
  );

export function cardanoTestWallet(options: CardanoTestWalletOptions): CardanoTestWallet {
  const secret = secretBytes(options.secretKey, 'secretKey');
  const networkId = options.networkId ?? 0;
  if (networkId !== 0 && networkId !== 1) throw new TypeError('networkId must be 0 or 1');
  const publicKey = ed25519.getPublicKey(secret);
  // CIP-19 enterprise address (header type 6): the payment key hash and no stake part.
  const addressBytes = new Uint8Array([0x60 | networkId, ...blake2b(publicKey, { dkLen: 28 })]);
  const addressHex = toHex(addressBytes);
  const address = cardanoBech32(addressHex);
  let enabled = false;

  const api: Cip30TestApi = {
    getNetworkId: async () => networkId,
    getUsedAddresses: async () => [addressHex],
    getUnusedAddresses: async () => [],
    getChangeAddress: async () => addressHex,
    getRewardAddresses: async () => [],
    getUtxos: async () => [],
    getCollateral: async () => [],
    getBalance: async () => '00', // CBOR 0: the test wallet holds no lovelace
    getExtensions: async () => [],
    async signData(signer, payloadHex) {
      // CIP-30 takes the address as hex bytes or bech32.
      if (signer !== addressHex && signer !== address) throw cip30Error(1, `the test wallet has no key for ${signer}`); // ProofGeneration
      const payload = fromHex(payloadHex);
      if (!payload || payloadHex.startsWith('0x')) throw cip30Error(-1, 'payload must be hex bytes'); // APIError InvalidRequest
      if (wallet.decline) throw cip30Error(3, 'user declined to sign'); // DataSignError UserDeclined
      const header = protectedHeader(addressBytes);
      // Sig_structure of RFC 9052 §4.4: what the Ed25519 key signs.
      const signature = ed25519.sign(encode(['Signature1', header, new Uint8Array(0), payload]), secret);
      const sign1 = encode([header, new Map([['hashed', false]]), payload, signature]);
      return { signature: toHex(sign1), key: toHex(coseKey(publicKey)) };
    },
    signTx: () => Promise.reject(cip30Error(-2, 'the test wallet does not sign transactions')), // APIError InternalError
    submitTx: () => Promise.reject(cip30Error(-2, 'the test wallet does not submit transactions')),
  };

  const wallet: CardanoTestWallet = {
    name: options.name ?? CARDANO_TEST_WALLET_NAME,
    icon: ICON,
    apiVersion: '1.0.0',
    supportedExtensions: [],
    isEnabled: async () => enabled,
    async enable() {
      enabled = true;
      return api;
    },
    address,
    addressHex,
    decline: options.decline ?? false,
  };
  return wallet;
}
