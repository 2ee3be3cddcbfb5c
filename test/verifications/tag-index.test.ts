// A scan enters one per-tag index (migration 0019, docs/throughput.md#group-commit): the read API's
// (tag_id, scanned_at, id), which also serves the reload lookup and a session's verifications on both
// engines. A query the planner cannot serve from it would read every verification of the team (or the
// table) instead, silently: this asks each engine's planner.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql, type Compilable } from 'kysely';
import type { Db } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrations.js';
import { sessionVerifications } from '../../src/sessions/repository.js';
import { genuineByUrlHashes } from '../../src/verifications/repository.js';
import { DATABASES, freshStorage, type Storage } from '../kit/harness.js';

for (const kind of DATABASES) {
  describe(`lookups of genuine scans use the per-tag index (${kind})`, () => {
    let storage: Storage;
    let db: Db;

    before(async () => {
      storage = await freshStorage(kind);
      db = storage.open();
      await migrate(db);
    });
    after(async () => {
      await db.close();
      await storage.drop();
    });

    /** The planner's words for a query, with sequential scans priced out on PostgreSQL (its tables are empty here). */
    async function plan(query: Compilable & { explain(): Promise<Record<string, unknown>[]> }): Promise<string> {
      if (kind === 'sqlite') {
        // Kysely's explain() on SQLite lists the bytecode; the plan names the indexes.
        const compiled = query.compile();
        return JSON.stringify((await db.kysely.executeQuery(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]))).rows);
      }
      return db.kysely.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        return JSON.stringify(await query.explain());
      });
    }

    test('a verification enters the id, world, reason and tag indexes, a flagged one also the flagged index, one of a known country the country index, and no other', async () => {
      const names =
        kind === 'sqlite'
          ? (
              await sql<{
                name: string;
                sql: string;
              }>`select name, sql from sqlite_master where type = 'index' and tbl_name = 'verifications' and sql is not null`.execute(db.kysely)
            ).rows
          : (
              await sql<{
                name: string;
                sql: string;
              }>`select indexname as name, indexdef as sql from pg_indexes where tablename = 'verifications' and schemaname = current_schema() and indexname not like '%pkey'`.execute(
                db.kysely,
              )
            ).rows;
      assert.deepEqual(names.map((n) => n.name).sort(), [
        'verifications_country_time',
        'verifications_flagged',
        'verifications_reason_time',
        'verifications_tag_time',
        'verifications_world_time',
      ]);
      assert.match(names.find((n) => n.name === 'verifications_flagged')!.sql, /where \(?"?signals"? is not null\)?/i);
      assert.match(names.find((n) => n.name === 'verifications_country_time')!.sql, /where \(?"?country"? is not null\)?/i);
      assert.match(names.find((n) => n.name === 'verifications_tag_time')!.sql, /\(?"?tag_id"?,\s*"?scanned_at"?,\s*"?id"?\)?/);
    });

    test('a reload looks up its original through the index', async () => {
      const query = genuineByUrlHashes(db.kysely, ['tag_a', 'tag_b'], ['h1', 'h2'], 1_000);
      assert.match(await plan(query), /verifications_tag_time/);
    });

    test("a session's verifications are read through a tag index", async () => {
      const query = sessionVerifications(db.kysely, { id: 'ses_x', team_id: 'team_x', mode: 'sandbox', tag_id: 'tag_a', opened_at: 1_000, expires_at: 2_000 });
      assert.match(await plan(query), /verifications_tag_time/);
    });
  });
}
