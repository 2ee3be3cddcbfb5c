// What a proof needs from the wallets and holdings modules (the façades
// src/extension/wallets and src/extension/holdings): the deployment's networks,
// signature verification per chain, and the holdings provider. Routes and
// services use only this interface, held by the context (tests replace parts).
import type { PublicClient } from 'viem';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import type { TokenRow } from './catalog/repository.js';
import { HoldingsUnavailable, holdingsFor } from './holdings/index.js';
import { encodeAddress, parseAddressBytes, rpcClient, verifyCardanoSignature, verifyEthereumSignature } from './wallets/index.js';

export { HoldingsUnavailable };

export type SignatureVerdict = { ok: true } | { ok: false; reason: string };

/** The networks a challenge names and signatures are made on: cardano `mainnet` | `preprod` | `preview`; the EVM chain id. */
export interface Networks {
  cardano: 'mainnet' | 'preprod' | 'preview';
  ethereumChainId: number;
}

/** Ethereum's test network (Sepolia), named by sandbox challenges of a mainnet deployment. */
const SEPOLIA = 11155111;

export interface OwnershipChecks {
  /**
   * The deployment's networks in production; test networks in the sandbox, whose tokens never
   * reach a real chain (docs/wallets.md, "Networks").
   */
  networks(mode: Mode): Networks;
  verifyCardano(input: { address: string; message: string; signature: string; key: string; network: Networks['cardano'] }): Promise<SignatureVerdict>;
  /** `{ok: false, reason: 'rpc-unavailable'}` when the EIP-1271 check could not reach the RPC (500). */
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

/** The deployment's checks (config.wallets): networks, wallets façade, holdings façade; one RPC client per process. */
export function createOwnershipChecks(db: Db, config: Config): OwnershipChecks {
  const wallets = config.wallets;
  const rpc: PublicClient | null = wallets.ethereumRpcUrl ? rpcClient(wallets.ethereumRpcUrl, wallets.providerTimeoutMs) : null;
  const holdings = holdingsFor(wallets, db.kysely, rpc);
  return {
    networks: (mode) =>
      mode === 'production'
        ? { cardano: wallets.cardanoNetwork, ethereumChainId: wallets.ethereumChainId }
        : {
            cardano: wallets.cardanoNetwork === 'mainnet' ? 'preprod' : wallets.cardanoNetwork,
            ethereumChainId: wallets.ethereumChainId === 1 ? SEPOLIA : wallets.ethereumChainId,
          },
    verifyCardano: async ({ network, ...input }) => verifyCardanoSignature({ ...input, networkId: network === 'mainnet' ? 1 : 0 }),
    verifyEthereum: (input) => verifyEthereumSignature(input, rpc ?? undefined),
    holds: (token, address) => holdings.forToken(token).holds(token, address),
    expectedHolders: (token) => holdings.forToken(token).expectedHolders(token),
  };
}
