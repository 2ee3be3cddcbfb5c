import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// GET /tags `q` finds a substring of the folded comment. Read row by row, that was every comment of the
// world twice a request (the page and its count): about 350 ms for a world of 1,000,000 tags. A trigram
// index answers it from the trigrams of q instead (docs/read-api.md#tag-search).
//
// SQLite: an FTS5 table with the trigram tokenizer (case-sensitive: the comments and q are folded
// already, src/tags/search-fold.ts). Its rows are keyed by `tag_search_keys`, whose INTEGER PRIMARY KEY
// VACUUM never renumbers (the implicit rowid of `tags`, a table keyed by text, it may). Triggers keep
// both in step with every write of a comment, whatever writes it.
//
// PostgreSQL: a GIN index with pg_trgm's operator class, which LIKE '%q%' uses. pg_trgm is a trusted
// extension that ships with PostgreSQL; where it is missing or may not be created, the search keeps
// reading every comment (as before: correct, slower on a large world).
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect === 'sqlite') {
    await sql`create table tag_search_keys (key integer primary key, tag_id text not null unique)`.execute(db);
    await sql`create virtual table tag_search using fts5(comment, tokenize = 'trigram case_sensitive 1')`.execute(db);
    await sql`insert into tag_search_keys (tag_id) select id from tags where comment_folded is not null`.execute(db);
    await sql`insert into tag_search (rowid, comment) select k.key, t.comment_folded from tag_search_keys k join tags t on t.id = k.tag_id`.execute(db);
    await sql`create trigger tag_search_insert after insert on tags when new.comment_folded is not null begin
      insert into tag_search_keys (tag_id) values (new.id);
      insert into tag_search (rowid, comment) values (last_insert_rowid(), new.comment_folded);
    end`.execute(db);
    await sql`create trigger tag_search_delete after delete on tags when old.comment_folded is not null begin
      delete from tag_search where rowid = (select key from tag_search_keys where tag_id = old.id);
      delete from tag_search_keys where tag_id = old.id;
    end`.execute(db);
    await sql`create trigger tag_search_update after update of comment_folded on tags begin
      delete from tag_search where rowid = (select key from tag_search_keys where tag_id = old.id);
      delete from tag_search_keys where tag_id = old.id;
      insert into tag_search_keys (tag_id) select new.id where new.comment_folded is not null;
      insert into tag_search (rowid, comment) select last_insert_rowid(), new.comment_folded where new.comment_folded is not null;
    end`.execute(db);
    return;
  }
  const schema = await trigramSchema(db);
  if (schema === null) return;
  await sql`create index tags_comment_trigrams on tags using gin (comment_folded ${sql.id(schema)}.gin_trgm_ops)`.execute(db);
}

/**
 * The schema pg_trgm lives in, creating it in `public` when it is not there yet (one copy serves every
 * schema of the database); null when it may not be created. A savepoint keeps a refusal from aborting
 * the migration's transaction; a concurrent creation by another migrating schema counts as present.
 */
async function trigramSchema(db: Kysely<any>): Promise<string | null> {
  const installed = async () =>
    (
      await sql<{
        schema: string;
      }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db)
    ).rows[0]?.schema ?? null;
  const present = await installed();
  if (present !== null) return present;
  await sql`savepoint tag_search_extension`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm with schema public`.execute(db);
    await sql`release savepoint tag_search_extension`.execute(db);
  } catch {
    await sql`rollback to savepoint tag_search_extension`.execute(db);
  }
  return installed();
}
