import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Holdings of the embedded provider (docs/wallets.md): which wallet holds how
// much of a catalog token, as the operator declares with `tapproof holdings set`.
// The sandbox always uses it; production uses it unless a chain provider is configured.
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('holdings')
    .addColumn('token_id', 'text', (c) => c.notNull().references('tokens.id'))
    .addColumn('address', 'text', (c) => c.notNull())
    // Decimal text: token quantities exceed 2^53 (erc20 base units).
    .addColumn('quantity', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('holdings_pk', ['token_id', 'address'])
    .execute();
}
