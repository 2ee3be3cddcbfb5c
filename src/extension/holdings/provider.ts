import type { TokenRow } from '../catalog/repository.js';

/** Where the extension API learns who holds a token (docs/wallets.md). */
export interface HoldingsProvider {
  name: string;
  /** Throws HoldingsUnavailable when it cannot answer (down, timed out, malformed answer). */
  holds(token: TokenRow, address: string): Promise<boolean>;
  /** Wallets known to hold the token; Cardano challenges list them. */
  expectedHolders(token: TokenRow): Promise<string[]>;
}

/** A provider that could not answer: the proof is not judged, the challenge stays usable. */
export class HoldingsUnavailable extends Error {}
