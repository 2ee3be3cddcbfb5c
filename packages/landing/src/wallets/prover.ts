import type { ExtensionClient, ProofResult } from '../api.js';

/** A wallet able to prove that it holds a verification's token: challenge, signature, proof. */
export interface Prover {
  chain: 'cardano' | 'ethereum';
  /** The wallet's name, to tell the visitor which wallet will sign. */
  name: string;
  prove(api: ExtensionClient, verificationId: string): Promise<ProofResult>;
}

/** UTF-8 text as hex, the payload form of CIP-30 `signData` and EIP-1193 `personal_sign`. */
export const utf8Hex = (text: string) => Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('');
