import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// One index for the two lookups of genuine scans (docs/throughput.md): a page reload's original
// and a session's verifications are both genuine scans of one tag inside a known
// window of time. Each index a verification enters is a B-tree leaf its commit writes,
// and on the two random keys the old indexes had (url_hash, session_id) every scan
// landed on a leaf of its own, several pages written per scan. Failed and
// replayed scans (all an attacker can produce at will) enter no index but the id's.
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('verifications_tag_genuine').on('verifications').columns(['tag_id', 'scanned_at']).where(sql.ref('genuine'), '=', 1).execute();
  await db.schema.dropIndex('verifications_tag_url').execute();
  await db.schema.dropIndex('verifications_session').execute();
}
