import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// PostgreSQL's group commit writes a batch's outcome in one statement that also
// checks that every chip it advances is still as the batch saw it (docs/throughput.md,
// src/verifications/repository.ts). When a chip has changed, the statement
// must change nothing at all: this function, called once the chip updates are
// counted, raises an error of its own (SQLSTATE TP001) that aborts the whole
// statement, so that the batch can be decided again under the chips' row locks.
// SQLite has no use for it: its writer holds the database's write lock.
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`
    CREATE FUNCTION tapproof_chips_unchanged(advanced bigint, expected integer) RETURNS boolean LANGUAGE plpgsql AS $$
    BEGIN
      IF advanced <> expected THEN
        RAISE EXCEPTION 'chips changed since this batch read them (% of % as seen)', advanced, expected USING ERRCODE = 'TP001';
      END IF;
      RETURN true;
    END $$`.execute(db);
}
