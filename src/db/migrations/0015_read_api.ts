import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// The read API's lists (docs/read-api.md). Keyset pages walk an index in its own order:
// newest verifications of a world, of one tag; a webhook's deliveries; a delivery's attempts.
// The world index grows at its right edge (scans arrive in time order), so a verify commit
// touches one more leaf it already holds; the per-tag index costs one leaf per scanned tag.
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('verifications_world_time').on('verifications').columns(['team_id', 'mode', 'scanned_at', 'id']).execute();
  await db.schema.createIndex('verifications_tag_time').on('verifications').columns(['tag_id', 'scanned_at', 'id']).execute();
  await db.schema.createIndex('deliveries_webhook_id').on('deliveries').columns(['webhook_id', 'id']).execute();
  await db.schema.createIndex('delivery_attempts_delivery').on('delivery_attempts').columns(['delivery_id', 'attempt']).execute();
  // A redelivery starts a fresh retry schedule (attempts back to 0) but keeps numbering
  // attempts after the earlier ones: their count moves here.
  await db.schema
    .alterTable('deliveries')
    .addColumn('earlier_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
