import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// GET /verifications filtered by `reason` or `genuine` (genuine is reason `ok`) walks a world's
// scans of one reason in time order (docs/read-api.md): without it the walk read the world's index
// and skipped every other reason, so a rare reason read the whole history. Like the world index it
// grows at its right edge, one edge per reason a world has, so a verify commit touches a leaf it
// already holds; it is the one index the filters cost the verify path.
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('verifications_reason_time').on('verifications').columns(['team_id', 'mode', 'reason', 'scanned_at', 'id']).execute();
}
