import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// A tag's write history, newest first (GET /tags/:id/writes, docs/read-api.md): without it the
// history would read every write of the team.
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('writer_sessions_tag_history').on('writer_sessions').columns(['tag_id', 'created_at']).execute();
}
