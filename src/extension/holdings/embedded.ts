// The embedded holdings provider: the `holdings` table the operator manages
// with `tapproof holdings set|unset`. SQL for holdings lives only here.
import type { Executor } from '../../db/database.js';
import type { HoldingsTable } from '../../db/schema.js';
import type { TokenRow } from '../catalog/repository.js';
import type { Clock } from '../../time.js';
import type { HoldingsProvider } from './provider.js';

export async function setHolding(db: Executor, tokenId: string, address: string, quantity: bigint, clock: Clock): Promise<void> {
  const row = { token_id: tokenId, address, quantity: quantity.toString(), updated_at: clock.nowMicros() };
  await db
    .insertInto('holdings')
    .values(row)
    .onConflict((oc) => oc.columns(['token_id', 'address']).doUpdateSet({ quantity: row.quantity, updated_at: row.updated_at }))
    .execute();
}

export type HoldingRow = HoldingsTable;

/** Who holds the token, by address. */
export async function listHoldings(db: Executor, tokenId: string): Promise<HoldingRow[]> {
  return db.selectFrom('holdings').selectAll().where('token_id', '=', tokenId).orderBy('address').execute();
}

export async function findHolding(db: Executor, tokenId: string, address: string): Promise<HoldingRow | undefined> {
  return db.selectFrom('holdings').selectAll().where('token_id', '=', tokenId).where('address', '=', address).executeTakeFirst();
}

/** True when a holding was removed. */
export async function unsetHolding(db: Executor, tokenId: string, address: string): Promise<boolean> {
  const result = await db.deleteFrom('holdings').where('token_id', '=', tokenId).where('address', '=', address).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export function embeddedProvider(db: Executor): HoldingsProvider {
  return {
    name: 'embedded',
    async holds(token: TokenRow, address: string) {
      const row = await db.selectFrom('holdings').select('quantity').where('token_id', '=', token.id).where('address', '=', address).executeTakeFirst();
      return row !== undefined && BigInt(row.quantity) > 0n;
    },
    async expectedHolders(token: TokenRow) {
      const rows = await db.selectFrom('holdings').select('address').where('token_id', '=', token.id).orderBy('address').execute();
      return rows.map((r) => r.address);
    },
  };
}
