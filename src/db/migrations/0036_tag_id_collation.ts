import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// On PostgreSQL `tags.id` compares in byte order (collate "C", as the API orders it), but the tables keyed by a
// tag's id were made with the database's default collation. A join from `tags` into one of them then compares in
// "C", which the other table's index (built in the default collation) cannot serve: finding a tapped tag with its
// chip read every chip of the database (1.5 s at a million chips, on every tap whose tag was not cached). The tables
// such joins reach from `tags` (a tag's chip, its emulated chip, its writes) now key it as `tags.id` does. Their
// indexes on tag_id are rebuilt; each holds a row per tag or per write. SQLite has one byte order and needs nothing.
const TABLES = ['chips', 'emulated_chips', 'writer_sessions'];

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const table of TABLES) await sql`alter table ${sql.table(table)} alter column tag_id type text collate "C"`.execute(db);
}
