// Picks the holdings provider for a token (docs/wallets.md): the sandbox always
// answers from the embedded table, so sandbox proofs never touch a real chain.
import type { PublicClient } from 'viem';
import type { WalletsConfig } from '../../config.js';
import type { Executor } from '../../db/database.js';
import type { TokenRow } from '../catalog/repository.js';
import { blockfrostProvider, evmProvider, koiosProvider } from './chains.js';
import { embeddedProvider } from './embedded.js';
import type { HoldingsProvider } from './provider.js';

export { setHolding, unsetHolding } from './repository.js';
export { blockfrostProvider, evmProvider, koiosProvider } from './chains.js';
export { HoldingsUnavailable, type HoldingsProvider } from './provider.js';

export interface Holdings {
  forToken(token: TokenRow): HoldingsProvider;
}

export function holdingsFor(config: WalletsConfig, db: Executor, rpc: PublicClient | null): Holdings {
  const embedded = embeddedProvider(db);
  const h = config.cardanoHoldings;
  const cardano =
    h.provider === 'koios'
      ? koiosProvider(h.url, h.token, config.providerTimeoutMs)
      : h.provider === 'blockfrost'
        ? blockfrostProvider(h.url, h.projectId, config.providerTimeoutMs)
        : embedded;
  const ethereum = config.ethereumHoldings === 'rpc' && rpc ? evmProvider(rpc) : embedded;
  return {
    forToken: (token) => (token.mode === 'sandbox' ? embedded : token.chain === 'cardano' ? cardano : ethereum),
  };
}
