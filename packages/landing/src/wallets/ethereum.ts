// EIP-1193 providers (`window.ethereum`): eth_requestAccounts, a Sign-In with Ethereum challenge naming
// the account, personal_sign (EIP-191), proof.
import { WalletError, fromWallet } from './errors.js';
import { utf8Hex, type Prover } from './prover.js';

export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/** The EIP-1193 provider in `ethereum` (`window.ethereum` by default), or null. */
export function ethereumProvider(ethereum: unknown = (globalThis as { ethereum?: unknown }).ethereum): Eip1193Provider | null {
  return ethereum && typeof (ethereum as Eip1193Provider).request === 'function' ? (ethereum as Eip1193Provider) : null;
}

export function ethereumProver(provider: Eip1193Provider, name = 'Ethereum wallet'): Prover {
  return {
    chain: 'ethereum',
    name,
    async prove(api, verificationId) {
      const [address] = (await fromWallet(() => provider.request({ method: 'eth_requestAccounts' }))) as string[];
      if (!address) throw new WalletError('it shared no account', false);
      const challenge = await api.challenge(verificationId, { address });
      const signature = (await fromWallet(() => provider.request({ method: 'personal_sign', params: [`0x${utf8Hex(challenge.message)}`, address] }))) as string;
      return api.proof(verificationId, { session_id: challenge.session_id, address, signature, blockchain_type: 'ethereum' });
    },
  };
}
