// CIP-30 wallets (`window.cardano.<name>`): enable, pick the address that holds the token, signData
// (CIP-8 COSE_Sign1 + COSE_Key), proof.
import { cardanoBech32 } from './bech32.js';
import { fromWallet } from './errors.js';
import { utf8Hex, type Prover } from './prover.js';

/** The part of the CIP-30 API a proof uses; addresses are hex bytes. */
export interface Cip30Api {
  getUsedAddresses(): Promise<string[]>;
  getChangeAddress(): Promise<string>;
  signData(address: string, payload: string): Promise<{ signature: string; key: string }>;
}

export interface Cip30Wallet {
  name?: string;
  enable(): Promise<Cip30Api>;
}

/** The CIP-30 wallets injected in `cardano` (`window.cardano` by default), by key. */
export function cardanoWallets(cardano: unknown = (globalThis as { cardano?: unknown }).cardano): [string, Cip30Wallet][] {
  if (!cardano || typeof cardano !== 'object') return [];
  return Object.entries(cardano as Record<string, unknown>).filter(
    (entry): entry is [string, Cip30Wallet] => !!entry[1] && typeof (entry[1] as Cip30Wallet).enable === 'function',
  );
}

export function cardanoProver(key: string, wallet: Cip30Wallet): Prover {
  return {
    chain: 'cardano',
    name: wallet.name || key,
    async prove(api, verificationId) {
      const enabled = await fromWallet(() => wallet.enable());
      const addresses = await fromWallet(async () => [...(await enabled.getUsedAddresses()), await enabled.getChangeAddress()]);
      const challenge = await api.challenge(verificationId);
      // The holder among the wallet's addresses, when the holdings provider could name it; otherwise the
      // first used one (the proof asks the provider about the signing address itself).
      const address = addresses.find((a) => challenge.expected_holders.includes(cardanoBech32(a))) ?? addresses[0]!;
      const signed = await fromWallet(() => enabled.signData(address, utf8Hex(challenge.message)));
      return api.proof(verificationId, { session_id: challenge.session_id, address, signature: signed.signature, key: signed.key, blockchain_type: 'cardano' });
    },
  };
}
