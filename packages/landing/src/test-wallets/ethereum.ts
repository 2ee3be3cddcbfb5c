// An EIP-1193 provider for tests, shaped like `window.ethereum`, that signs with a secp256k1 key it is
// given: `personal_sign` answers the EIP-191 signature MetaMask would (65 bytes r‖s‖v, low s, v 27 or
// 28, deterministic RFC 6979 nonces), so the same key and message give the same signature as ethers or viem.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { fromHex, secretBytes, toHex } from './bytes.js';

export interface EthereumTestWalletOptions {
  /** The secp256k1 private key, hex (with or without 0x) or bytes. A test key only: it lives in the page. */
  privateKey: string | Uint8Array;
  /** What `eth_chainId` answers. Default 1; EIP-191 signatures do not depend on it. */
  chainId?: number;
  /** Refuse every signature, as a visitor pressing "Reject" would (EIP-1193 4001). */
  decline?: boolean;
}

export interface EthereumTestWallet {
  request(args: { method: string; params?: unknown[] | Record<string, unknown> }): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): EthereumTestWallet;
  removeListener(event: string, listener: (...args: unknown[]) => void): EthereumTestWallet;
  /** Its account, EIP-55 checksummed: what `tapproof holdings set --address` takes. */
  readonly address: string;
  /** Set to true or false at any time: whether the next personal_sign is declined. */
  decline: boolean;
  readonly isTapproofTestWallet: true;
}

/** An EIP-1193 ProviderRpcError: an Error with the numeric code dApps read. */
const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });

const encoder = new TextEncoder();

/** EIP-55: each letter of the address upper-cased where the keccak of the lowercase address has a high nibble. */
function checksummed(lower: string): string {
  const hash = toHex(keccak_256(encoder.encode(lower)));
  return `0x${[...lower].map((c, i) => (parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c)).join('')}`;
}

/** EIP-191 version 0x45 over `message`, signed: 0x r ‖ s ‖ v. */
function personalSign(message: Uint8Array, secret: Uint8Array): string {
  const prefixed = new Uint8Array([...encoder.encode(`\x19Ethereum Signed Message:\n${message.length}`), ...message]);
  // noble's 'recovered' form is the recovery bit then r ‖ s; Ethereum puts v = 27 + bit last.
  const signed = secp256k1.sign(keccak_256(prefixed), secret, { prehash: false, lowS: true, format: 'recovered' });
  return `0x${toHex(signed.subarray(1))}${(27 + signed[0]!).toString(16)}`;
}

export function ethereumTestWallet(options: EthereumTestWalletOptions): EthereumTestWallet {
  const secret = secretBytes(options.privateKey, 'privateKey');
  const chainId = options.chainId ?? 1;
  const publicKey = secp256k1.getPublicKey(secret, false);
  const lower = toHex(keccak_256(publicKey.subarray(1)).subarray(12));
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();

  const provider: EthereumTestWallet = {
    address: checksummed(lower),
    decline: options.decline ?? false,
    isTapproofTestWallet: true,
    async request({ method, params }) {
      const args = Array.isArray(params) ? params : [];
      switch (method) {
        // Lower case, as MetaMask answers accounts.
        case 'eth_requestAccounts':
        case 'eth_accounts':
          return [`0x${lower}`];
        case 'eth_chainId':
          return `0x${chainId.toString(16)}`;
        case 'net_version':
          return String(chainId);
        case 'personal_sign': {
          const [data, account] = args;
          if (typeof account !== 'string' || account.toLowerCase() !== `0x${lower}`) throw rpcError(4100, `the test wallet has no account ${String(account)}`);
          if (typeof data !== 'string') throw rpcError(-32602, 'personal_sign takes the message as a string');
          // MetaMask signs 0x-hex as the bytes it spells, any other string as its UTF-8.
          const bytes = data.startsWith('0x') ? fromHex(data) : encoder.encode(data);
          if (!bytes) throw rpcError(-32602, 'the message is not hex');
          if (provider.decline) throw rpcError(4001, 'User rejected the request.');
          return personalSign(bytes, secret);
        }
        default:
          throw rpcError(4200, `the test wallet does not support ${method}`);
      }
    },
    // The events of EIP-1193 never fire: the account and the chain of a test wallet do not change.
    on(event, listener) {
      (listeners.get(event) ?? listeners.set(event, new Set()).get(event)!).add(listener);
      return provider;
    },
    removeListener(event, listener) {
      listeners.get(event)?.delete(listener);
      return provider;
    },
  };
  return provider;
}
