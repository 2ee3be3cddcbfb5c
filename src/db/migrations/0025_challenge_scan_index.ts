import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Scan retention keeps a scan that a challenge names, and asks that of every scan it prunes: without
// this index each question read every challenge (claims, ownerships and ownership proofs already
// lead an index with the scan's id).
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('challenges_verification').on('challenges').columns(['verification_id']).execute();
}
