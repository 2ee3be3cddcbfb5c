// What a proof needs from the wallets and holdings modules (i9-wallets'
// façades src/extension/wallets and src/extension/holdings): the deployment's
// networks, signature verification per chain, and the holdings provider.
// Routes and services use only this interface.
import type { PublicClient } from 'viem';
import type { AppContext } from '../context.js';
import type { TokenRow } from './catalog/repository.js';
import { HoldingsUnavailable, holdingsFor } from './holdings/index.js';
import { encodeAddress, parseAddressBytes, rpcClient, verifyCardanoSignature, verifyEthereumSignature } from './wallets/index.js';

export { HoldingsUnavailable };

export type SignatureVerdict = { ok: true } | { ok: false; reason: string };

export interface OwnershipChecks {
  /** The network a challenge names: cardano `mainnet` | `preprod` | `preview`; ethereum the chain id. */
  cardanoNetwork: string;
  ethereumChainId: number;
  /** `{ok: false, reason: 'rpc-unavailable'}` when the EIP-1271 check could not reach the RPC (500). */
  verifyCardano(input: { address: string; message: string; signature: string; key: string }): Promise<SignatureVerdict>;
  verifyEthereum(input: { address: string; message: string; signature: string }): Promise<SignatureVerdict>;
  /** Throws HoldingsUnavailable when the provider cannot answer. */
  holds(token: TokenRow, address: string): Promise<boolean>;
  /** Wallets the provider knows to hold the token (Cardano challenges list them). */
  expectedHolders(token: TokenRow): Promise<string[]>;
}

/** A Cardano address as bech32 (the form the verifier and the holdings compare): hex is converted, anything else kept. */
export function bech32Address(address: string): string {
  if (!/^([0-9a-fA-F]{2}){29,57}$/.test(address)) return address;
  const parsed = parseAddressBytes(Uint8Array.from(Buffer.from(address, 'hex')));
  return parsed ? encodeAddress(parsed) : address;
}

const checksOf = new WeakMap<AppContext, OwnershipChecks>();

/** Replaces some checks for one app (tests). */
export function useOwnershipChecks(ctx: AppContext, checks: Partial<OwnershipChecks>): void {
  checksOf.set(ctx, { ...ownershipChecks(ctx), ...checks });
}

/** The deployment's checks (config.wallets): networks, wallets façade, holdings façade; one RPC client per app. */
export function ownershipChecks(ctx: AppContext): OwnershipChecks {
  let checks = checksOf.get(ctx);
  if (checks) return checks;
  const wallets = ctx.config.wallets;
  const rpc: PublicClient | null = wallets.ethereumRpcUrl ? rpcClient(wallets.ethereumRpcUrl, wallets.providerTimeoutMs) : null;
  const holdings = holdingsFor(wallets, ctx.db.kysely, rpc);
  checks = {
    cardanoNetwork: wallets.cardanoNetwork,
    ethereumChainId: wallets.ethereumChainId,
    verifyCardano: async (input) => verifyCardanoSignature({ ...input, networkId: wallets.cardanoNetwork === 'mainnet' ? 1 : 0 }),
    verifyEthereum: (input) => verifyEthereumSignature(input, rpc ?? undefined),
    holds: (token, address) => holdings.forToken(token).holds(token, address),
    expectedHolders: (token) => holdings.forToken(token).expectedHolders(token),
  };
  checksOf.set(ctx, checks);
  return checks;
}
