// Wallet connectors: the prover for a token's chain among the wallets present in this browser.
import { cardanoProver, cardanoWallets } from './cardano.js';
import { ethereumProver, ethereumProvider } from './ethereum.js';
import type { Prover } from './prover.js';

export { bech32Encode, cardanoBech32 } from './bech32.js';
export { cardanoProver, cardanoWallets, type Cip30Api, type Cip30Wallet } from './cardano.js';
export { WalletError, walletError } from './errors.js';
export { ethereumProver, ethereumProvider, type Eip1193Provider } from './ethereum.js';
export { utf8Hex, type Prover } from './prover.js';

/**
 * The wallet that can prove a token of `chain`: for Cardano the CIP-30 wallet named `preferred` when
 * injected, else the first one; for Ethereum the EIP-1193 provider. Null when none is present.
 */
export function findProver(chain: string, preferred?: string | null): Prover | null {
  if (chain === 'cardano') {
    const wallets = cardanoWallets();
    const [key, wallet] = wallets.find(([k]) => k === preferred) ?? wallets[0] ?? [];
    return wallet ? cardanoProver(key!, wallet) : null;
  }
  if (chain === 'ethereum') {
    const provider = ethereumProvider();
    return provider ? ethereumProver(provider) : null;
  }
  return null;
}
