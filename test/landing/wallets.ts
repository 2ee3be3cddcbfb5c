// Wallets injected into the page as a browser extension would inject them: a CIP-30 wallet at
// `window.cardano.testwallet` and an EIP-1193 provider at `window.ethereum`. The keys stay in Node: the
// page's wallet calls an exposed function that signs for real (CIP-8 COSE_Sign1 with an Ed25519 key,
// EIP-191 with a secp256k1 key), so the server judges genuine signatures. The page scripts are text:
// functions passed from here would carry tsx's `__name` helper, which the page does not have.
import type { BrowserContext, Page } from 'playwright-core';
import { getAddress, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { CardanoWallet } from '../extension/wallets.js';

export interface WalletOptions {
  /** The visitor refuses to sign: CIP-30 DataSignError UserDeclined, EIP-1193 4001. */
  decline?: boolean;
  /** A page already open that gets the wallet now, as from an extension that injects itself late. */
  page?: Page;
}

/** The wallet's script: in every page the profile opens from now on, and in `page` at once. */
async function install(context: BrowserContext, script: string, page?: Page): Promise<void> {
  await context.addInitScript(script);
  if (page) await page.evaluate(script);
}

export const CARDANO_WALLET_NAME = 'Test Cardano Wallet';

export async function injectCardano(context: BrowserContext, wallet: CardanoWallet, options: WalletOptions = {}): Promise<void> {
  const address = Buffer.from(wallet.addressBytes).toString('hex');
  await context.exposeFunction('tapproofTestSignData', (signer: string, payload: string) => {
    if (signer !== address) throw new Error(`asked to sign for ${signer}, which is not this wallet's address`);
    return wallet.signData(Buffer.from(payload, 'hex').toString('utf8'));
  });
  await install(
    context,
    `(() => {
    const { address, name, decline } = ${JSON.stringify({ address, name: CARDANO_WALLET_NAME, decline: options.decline ?? false })};
    const api = {
      getUsedAddresses: async () => [address],
      getChangeAddress: async () => address,
      signData: (signer, payload) => (decline ? Promise.reject({ code: 3, info: 'user declined to sign' }) : window.tapproofTestSignData(signer, payload)),
    };
    window.cardano = { ...window.cardano, testwallet: { name, apiVersion: '0.1.0', icon: '', isEnabled: async () => true, enable: async () => api } };
  })();`,
    options.page,
  );
}

export async function injectEthereum(context: BrowserContext, account: PrivateKeyAccount, options: WalletOptions = {}): Promise<void> {
  await context.exposeFunction('tapproofTestPersonalSign', (data: Hex, signer: string) => {
    if (getAddress(signer) !== account.address) throw new Error(`asked to sign for ${signer}, which is not this wallet's account`);
    return account.signMessage({ message: { raw: data } });
  });
  // Accounts in lower case, as MetaMask answers them.
  await install(
    context,
    `(() => {
    const { address, decline } = ${JSON.stringify({ address: account.address.toLowerCase(), decline: options.decline ?? false })};
    window.ethereum = {
      request: async ({ method, params }) => {
        if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [address];
        if (method === 'personal_sign') {
          if (decline) throw { code: 4001, message: 'User rejected the request.' };
          return window.tapproofTestPersonalSign(params[0], params[1]);
        }
        throw { code: 4200, message: 'unsupported method ' + method };
      },
    };
  })();`,
    options.page,
  );
}
