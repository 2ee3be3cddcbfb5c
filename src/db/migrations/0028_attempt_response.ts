import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { text } from './helpers.js';

// The first bytes of what the endpoint answered to a delivery attempt (GET /webhooks/:id/deliveries,
// docs/read-api.md#webhooks-and-deliveries): why an endpoint refused is usually in its body. Null for
// an attempt without an answer and for the attempts made before this column.
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('delivery_attempts').addColumn('response_excerpt', text(dialect)).execute();
}
