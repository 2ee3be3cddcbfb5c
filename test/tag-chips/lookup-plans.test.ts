// A tag's own rows are found by their keys from the tag: a tap's tag with its chip (the verify path's read when
// the tag is not cached), an emulated chip with its tag and chip, a tag with its stale write. A join the planner
// cannot serve from the joined table's key reads that whole table on every call, silently; on PostgreSQL that is
// what a key column in another collation than `tags.id` does. This asks each engine's planner for the statements
// the repositories run.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from '../../src/db/schema.js';
import { migrate } from '../../src/db/migrations.js';
import { findEmulatedChip, findTagsByUrls } from '../../src/tag-chips/repository.js';
import { findTagWithStaleWrite } from '../../src/writer/repository.js';
import { DATABASES, freshStorage, type Storage } from '../kit/harness.js';

const world = { teamId: 'team_plans', mode: 'production' as const };

for (const kind of DATABASES) {
  describe(`a tag's chip and writes are read by their keys (${kind})`, () => {
    let storage: Storage;
    let logged: Kysely<Database>;
    const statements: CompiledQuery[] = [];

    before(async () => {
      storage = await freshStorage(kind);
      const db = storage.open();
      await migrate(db);
      await db.close();
      const log = (event: { level: string; query: CompiledQuery }) => void (event.level === 'query' && statements.push(event.query));
      const target = storage.target;
      logged = new Kysely<Database>({
        dialect:
          target.kind === 'sqlite'
            ? new SqliteDialect({ database: new SQLite(target.path) })
            : new PostgresDialect({ pool: new pg.Pool({ connectionString: target.url, max: 1 }) }),
        log,
      });
    });
    after(async () => {
      await logged.destroy();
      await storage.drop();
    });

    /** The planner's words for the one statement `run` sent, with sequential scans priced out on PostgreSQL (its tables are empty). */
    async function plan(run: () => Promise<unknown>): Promise<string> {
      statements.length = 0;
      await run();
      assert.equal(statements.length, 1);
      const { sql: text, parameters } = statements.pop()!;
      if (kind === 'sqlite') {
        const { rows } = await logged.executeQuery(CompiledQuery.raw(`explain query plan ${text}`, [...parameters]));
        return rows.map((r) => (r as { detail: string }).detail).join('\n');
      }
      return logged.connection().execute(async (c) => {
        await sql`set enable_seqscan = off`.execute(c);
        const { rows } = await c.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${text}`, [...parameters]));
        await sql`reset enable_seqscan`.execute(c);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    }

    /** No table of `tables` is read whole. */
    function keyed(words: string, tables: string[]): void {
      for (const table of tables) {
        const whole = kind === 'sqlite' ? new RegExp(`SCAN ${table}\\b(?! USING)`) : new RegExp(`Seq Scan on ${table}\\b`);
        assert.doesNotMatch(words, whole, `${table} read whole:\n${words}`);
      }
    }

    test("a tapped url's tag with its chip", async () => {
      keyed(await plan(() => findTagsByUrls(logged, world, ['https://brand.example/a', 'https://brand.example/b'])), ['tags', 'chips']);
    });

    test('an emulated chip with its tag and chip', async () => {
      keyed(await plan(() => findEmulatedChip(logged, 'tag_x')), ['emulated_chips', 'tags', 'chips']);
    });

    test('a tag with its stale write', async () => {
      keyed(await plan(() => findTagWithStaleWrite(logged, world, 'tag_x', 0)), ['tags', 'writer_sessions']);
    });
  });
}
