// Ethereum proofs: EIP-191 personal_sign by an externally owned account, or by a
// contract wallet through EIP-1271 `isValidSignature` on the configured chain
// (recovered locally first; the chain is asked only when that does not match).
import { recover } from 'tiny-secp256k1';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { MAX_BODY_BYTES } from '../holdings/chains.js';
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  getAddress,
  hashMessage,
  http,
  isAddress,
  isHex,
  parseAbi,
  type Hex,
  type PublicClient,
} from 'viem';

export type EthereumFailure = 'invalid-address' | 'malformed-signature' | 'bad-signature' | 'rpc-unavailable';
export type EthereumVerdict = { ok: true } | { ok: false; reason: EthereumFailure };

export interface EthereumProof {
  address: string;
  /** The text signed (UTF-8), or `{ raw: '0x…' }` for raw bytes. */
  message: string | { raw: Hex };
  signature: string;
}

/** A client for EIP-1271 checks, bounded so a slow node cannot hold a request for long. */
export function rpcClient(url: string, timeoutMs = 5000): PublicClient {
  // viem reads the answer with a byte count and cancels it past the limit; ours is the providers' one.
  return createPublicClient({ transport: http(url, { timeout: timeoutMs, retryCount: 0, maxResponseBodySize: MAX_BODY_BYTES }) }) as PublicClient;
}

function wellFormed(proof: EthereumProof): EthereumFailure | null {
  if (typeof proof.address !== 'string' || !isAddress(proof.address, { strict: false })) return 'invalid-address';
  if (typeof proof.signature !== 'string' || !isHex(proof.signature, { strict: true })) return 'malformed-signature';
  return null;
}

/**
 * Without a client only EOA signatures can pass (ecrecover); with one, a
 * signature that does not recover to the address is checked by the contract at
 * that address, if any (EIP-1271 `isValidSignature` over the EIP-191 hash).
 */
export async function verifyEthereumSignature(proof: EthereumProof, client?: PublicClient): Promise<EthereumVerdict> {
  const malformed = wellFormed(proof);
  if (malformed) return { ok: false, reason: malformed };
  const address = getAddress(proof.address.toLowerCase());
  const signature = proof.signature as Hex;
  try {
    if (recoverAddress(hashMessage(proof.message, 'bytes'), signature) === address.toLowerCase()) return { ok: true };
  } catch {
    // Not an ECDSA signature (wrong length, bad v): only a contract wallet could accept it.
    if (!client) return { ok: false, reason: 'malformed-signature' };
  }
  if (!client) return { ok: false, reason: 'bad-signature' };
  return eip1271(client, address, hashMessage(proof.message), signature);
}

/** viem's rule: `v` is 0/1 or 27/28; anything else is not a recoverable signature. */
function recoveryBit(v: number): number {
  if (v === 0 || v === 1) return v;
  if (v === 27 || v === 28) return v - 27;
  throw new Error('Invalid yParityOrV value');
}

/** Half secp256k1's group order: s and n - s both verify, so only the low one is canonical (EIP-2). */
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/**
 * The signer of a canonical 65-byte (r, s, v) signature over `hash`, as lowercase 0x hex:
 * exactly 130 hex digits, r and s in [1, n-1] with s <= n/2 (a high-s twin is refused, so one
 * signature has one spelling), v as above, a point on the curve (docs/wallets.md, Signatures). Recovery runs in tiny-secp256k1
 * (libsecp256k1 compiled to WebAssembly), several times cheaper than
 * @noble/curves, where it was the largest single cost of an Ethereum proof.
 */
function recoverAddress(hash: Uint8Array, signature: Hex): string {
  if (signature.length !== 132) throw new Error('invalid signature length');
  if (BigInt(`0x${signature.slice(66, 130)}`) > HALF_N) throw new Error('non-canonical signature (high s)');
  const publicKey = recover(hash, Buffer.from(signature.slice(2, 130), 'hex'), recoveryBit(Number.parseInt(signature.slice(130), 16)) as 0 | 1, false);
  if (!publicKey) throw new Error('signature does not recover to a point');
  return `0x${Buffer.from(keccak_256(publicKey.subarray(1)).subarray(12)).toString('hex')}`;
}

const EIP1271 = parseAbi(['function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)']);
const MAGIC = '0x1626ba7e';

/** Asks the contract at `address`; an address without code, a revert or another answer is a bad signature, a node that fails is not a verdict. */
async function eip1271(client: PublicClient, address: Hex, hash: Hex, signature: Hex): Promise<EthereumVerdict> {
  try {
    const code = await client.getCode({ address });
    if (!code || code === '0x') return { ok: false, reason: 'bad-signature' };
    const answer = await client.readContract({ address, abi: EIP1271, functionName: 'isValidSignature', args: [hash, signature] });
    return answer.toLowerCase() === MAGIC ? { ok: true } : { ok: false, reason: 'bad-signature' };
  } catch (error) {
    const reverted =
      error instanceof BaseError && (error.walk((e) => e instanceof ContractFunctionRevertedError) || /revert|returned no data|decode/i.test(error.message));
    return reverted ? { ok: false, reason: 'bad-signature' } : { ok: false, reason: 'rpc-unavailable' };
  }
}
