// The `holdings` table the operator manages with `tapproof holdings set|unset`, which the embedded
// holdings provider reads (embedded.ts).
import type { Executor } from '../../db/database.js';
import type { HoldingsTable } from '../../db/schema.js';
import type { Clock } from '../../time.js';

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

/** The quantity `address` holds of the token, or undefined when it holds none. */
export async function holdingQuantity(db: Executor, tokenId: string, address: string): Promise<string | undefined> {
  return (await db.selectFrom('holdings').select('quantity').where('token_id', '=', tokenId).where('address', '=', address).executeTakeFirst())?.quantity;
}

/** The addresses that hold the token, in address order. */
export async function holderAddresses(db: Executor, tokenId: string): Promise<string[]> {
  return (await db.selectFrom('holdings').select('address').where('token_id', '=', tokenId).orderBy('address').execute()).map((r) => r.address);
}
