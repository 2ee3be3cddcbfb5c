import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// GET /tags `uid` finds the tags of a world whose chip has a UID: without an index that read every chip.
// Mode and UID lead so that the same index also answers the write's "is this UID bound to another tag"
// question, which names a mode and a UID only; team_id last narrows the listing to the caller's world
// (docs/read-api.md#finding-a-tag-by-its-url-or-chip).
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('chips_mode_uid').on('chips').columns(['mode', 'uid', 'team_id']).execute();
}
