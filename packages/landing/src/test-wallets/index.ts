// Test wallets for a landing page: a CIP-30 wallet and an EIP-1193 provider that sign for real with keys
// the test gives them, so a brand can run the ownership proof in a browser without a wallet extension.
// For tests only: the keys live in the page's JavaScript. A separate entry point
// (`@tapproof/landing/test-wallets`), so that no production bundle includes it by accident.
import { cardanoTestWallet, type CardanoTestWallet, type CardanoTestWalletOptions } from './cardano.js';
import { ethereumTestWallet, type EthereumTestWallet, type EthereumTestWalletOptions } from './ethereum.js';

export { CARDANO_TEST_WALLET_NAME, cardanoTestWallet, type CardanoTestWallet, type CardanoTestWalletOptions, type Cip30TestApi } from './cardano.js';
export { ethereumTestWallet, type EthereumTestWallet, type EthereumTestWalletOptions } from './ethereum.js';

export interface TestWalletOptions {
  /** A CIP-30 wallet at `window.cardano[key]` (default key `tapproof`), beside any wallet already there. */
  cardano?: CardanoTestWalletOptions & { key?: string };
  /** An EIP-1193 provider at `window.ethereum`, in place of any other. */
  ethereum?: EthereumTestWalletOptions;
}

/**
 * Installs the wallets `options` asks for into `target` (a page's `window`, or `globalThis` in Node)
 * where browser extensions put theirs, and returns them (their addresses, their `decline` switch).
 */
export function installTestWallet(target: object, options: TestWalletOptions): { cardano?: CardanoTestWallet; ethereum?: EthereumTestWallet } {
  const page = target as { cardano?: Record<string, unknown>; ethereum?: unknown };
  const installed: { cardano?: CardanoTestWallet; ethereum?: EthereumTestWallet } = {};
  if (options.cardano) {
    const { key = 'tapproof', ...wallet } = options.cardano;
    installed.cardano = cardanoTestWallet(wallet);
    page.cardano = { ...page.cardano, [key]: installed.cardano };
  }
  if (options.ethereum) {
    installed.ethereum = ethereumTestWallet(options.ethereum);
    page.ethereum = installed.ethereum;
  }
  return installed;
}
