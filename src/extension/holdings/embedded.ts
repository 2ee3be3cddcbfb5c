// The embedded holdings provider: who holds a token is what the operator set in the `holdings` table.
import type { Executor } from '../../db/database.js';
import type { TokenRow } from '../catalog/repository.js';
import type { HoldingsProvider } from './provider.js';
import * as holdingsRepo from './repository.js';

export function embeddedProvider(db: Executor): HoldingsProvider {
  return {
    name: 'embedded',
    async holds(token: TokenRow, address: string) {
      const quantity = await holdingsRepo.holdingQuantity(db, token.id, address);
      return quantity !== undefined && BigInt(quantity) > 0n;
    },
    expectedHolders: (token: TokenRow) => holdingsRepo.holderAddresses(db, token.id),
  };
}
