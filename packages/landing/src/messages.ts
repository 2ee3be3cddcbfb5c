// What the visitor reads: the verdict, the item's details, and each refusal of the API or the wallet in
// plain words. One place, so that a brand can see (and a test can assert) every sentence the element shows.
import { ExtensionError, type ExtVerification, type Tamper } from './api.js';
import { WalletError } from './wallets/errors.js';

export const TEXT = {
  checking: 'Checking this item…',
  genuine: 'Genuine',
  genuineDetail: 'This page was opened by a tap of the original tag.',
  notGenuine: 'Not genuine',
  notGenuineDetail: 'This link does not come from a new tap of the original tag. Tap the item itself to check it.',
  unavailable: 'The item could not be checked right now. Reload the page to try again.',
  notProven: 'Not proven yet',
  prove: 'Prove ownership',
  proving: 'Waiting for your wallet…',
  proven: 'Ownership proven.',
  claim: 'Claim this item',
  claimNote: 'Note (optional)',
  claimed: 'Claimed on this page.',
  claimsHeading: 'Claims on this page',
  noClaims: 'No claims yet.',
  sealOpened: 'This item’s seal has been opened.',
  sealOpenedDetail: 'Its tag has reported the seal broken. If it was sold to you sealed, ask the seller.',
};

const CHAINS: Record<string, string> = { cardano: 'Cardano', ethereum: 'Ethereum' };
export const chainName = (chain: string) => CHAINS[chain] ?? chain;

export const walletHint = (chain: string, wallet: string | null) =>
  wallet ? `Signs with ${wallet} (${chainName(chain)}).` : `No ${chainName(chain)} wallet was found in this browser.`;

export const tokenText = (token: NonNullable<ExtVerification['token']>) => `${token.name} (${token.symbol}) on ${chainName(token.blockchain_type)}`;

/** TagTamper: `permanent` says whether the loop was ever opened, `current` whether it is open now. */
export function sealText(tamper: Tamper): string {
  if (tamper.current === 'open') return 'Open';
  if (tamper.permanent === 'open') return tamper.current === 'closed' ? 'Opened before, closed now' : 'Opened before';
  if (tamper.permanent === 'closed' && tamper.current === 'closed') return 'Intact';
  return 'Not monitored';
}

/** `2026-11-25T17:54:03.123456Z` → `2026-11-25 17:54 UTC` (the same for every visitor, whatever their zone). */
export const timeText = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

const API_REFUSALS: Record<string, string> = {
  'Address does not hold the required token': 'This wallet does not hold the token of this item.',
  'Ownership is held by another wallet': 'Another wallet owns this item and still holds its token.',
  'The proof window of this scan has closed: scan the item again': 'The time to prove ownership after this tap is over. Tap the item again.',
  'Signature verification failed': 'The wallet’s signature could not be verified.',
  'Invalid or expired challenge': 'The request to your wallet expired. Try again.',
  'server error, try again later': 'The wallet could not be checked right now. Try again later.',
  'Too Many Requests': 'Too many requests from this network. Try again later.',
};

/** A failed claim or proof, in plain words. */
export function refusalText(error: unknown): string {
  if (error instanceof WalletError) return error.declined ? 'You declined the request in your wallet.' : `Your wallet could not sign: ${error.message}`;
  if (error instanceof ExtensionError) return API_REFUSALS[error.message] ?? `${error.message}.`;
  return 'The service could not be reached. Check your connection and try again.';
}
