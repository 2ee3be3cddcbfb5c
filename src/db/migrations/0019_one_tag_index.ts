import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// A scan enters one index per tag, not two. The read API's per-tag index
// (tag_id, scanned_at, id; migration 0015) serves the two lookups the partial index
// on genuine scans was made for (a page reload's original, a session's
// verifications: both one tag inside a known window), with `genuine` read from the row.
// Each per-tag index costs the commit one scattered leaf per scanned tag, so one
// such index serves them all (docs/throughput.md).
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.dropIndex('verifications_tag_genuine').execute();
}
