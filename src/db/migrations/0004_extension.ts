import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// The extension API (docs/decisions.md §7): the operator's product and token
// catalog linked to tags, claims (a verification linked to a URL), ownership
// challenges and the proven ownership of a verification. Verification rows
// themselves are untouched: the scan path does not pay for the extension.
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('products')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('image_url', 'text')
    .addColumn('description', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('symbol', 'text', (c) => c.notNull())
    .addColumn('supply', 'bigint', (c) => c.notNull())
    .addColumn('contract_address', 'text')
    .addColumn('policy_id', 'text')
    .addColumn('asset_name', 'text')
    .addColumn('token_number', 'text')
    .addColumn('standard', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('tag_links')
    .addColumn('tag_id', 'text', (c) => c.primaryKey().references('tags.id'))
    .addColumn('product_id', 'text', (c) => c.references('products.id'))
    .addColumn('token_id', 'text', (c) => c.references('tokens.id'))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('claims')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('verification_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('resource_url', 'text', (c) => c.notNull())
    // A 2048-character URL may be 8 kB of UTF-8, beyond a PostgreSQL index entry: the hash is indexed.
    .addColumn('resource_url_hash', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('claims_resource').on('claims').columns(['mode', 'resource_url_hash', 'created_at']).execute();

  await db.schema
    .createTable('challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('verification_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('token_id', 'text', (c) => c.notNull())
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('issued_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('challenges_expiry').on('challenges').columns(['expires_at']).execute();

  await db.schema
    .createTable('ownerships')
    .addColumn('verification_id', 'text', (c) => c.primaryKey())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('wallet_address', 'text', (c) => c.notNull())
    .addColumn('token_id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'bigint', (c) => c.notNull())
    .execute();
}
