import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Every successful ownership proof of a verification, kept when a later proof
// replaces its owner (docs/extension.md, "Ownership after a resale"): the
// ownerships row is the current owner, this table its history for the team.
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('ownership_proofs')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .addColumn('verification_id', 'text', (c) => c.notNull())
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('wallet_address', 'text', (c) => c.notNull())
    .addColumn('token_id', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'bigint', (c) => c.notNull())
    .addColumn('replaced_at', 'bigint')
    .execute();
  await db.schema.createIndex('ownership_proofs_verification').on('ownership_proofs').columns(['verification_id', 'verified_at']).execute();
  // Ownerships proven before this table existed start its history.
  await db
    .insertInto('ownership_proofs')
    .columns(['request_id', 'verification_id', 'chain', 'wallet_address', 'token_id', 'verified_at'])
    .expression((eb) => eb.selectFrom('ownerships').select(['request_id', 'verification_id', 'chain', 'wallet_address', 'token_id', 'verified_at']))
    .execute();
}
