// The SQLite commit thread's connection (COMMIT_CONNECTION). A statement that changes many existing pages inside a
// transaction keeps a statement journal; by default SQLite spills it past 64 KiB into a file it creates and deletes
// in a temp directory, and the writer keeps it in memory. A spilled journal stays open, already deleted, until its
// transaction ends, which is how the test sees it. Its page cache is 8 MiB, the other connections' 32 MiB.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type OpenOptions } from '../../src/db/database.js';
import { COMMIT_CONNECTION } from '../../src/db/commit-thread.js';

/** The temp files SQLite holds open in this process (its names start with etilqs_). */
const tempFilesOpen = () =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).includes('etilqs_');
    } catch {
      return false;
    }
  }).length;

// ~60 pages of table and unique index, all changed by one statement that may abort on a duplicate.
const ROWS = 2_000;

/** Temp files held open while one such statement's transaction is still open, and the rows it changed. */
async function bigStatement(path: string, options: OpenOptions): Promise<{ tempFiles: number; changed: number }> {
  const db = openDatabase({ kind: 'sqlite', path }, options);
  const kysely = db.kysely as unknown as Kysely<Record<string, never>>;
  try {
    await sql`create table probe (id integer primary key, v text not null unique)`.execute(kysely);
    await kysely.transaction().execute(async (trx) => {
      for (let from = 1; from <= ROWS; from += 500) {
        const values = Array.from({ length: 500 }, (_, i) => sql`(${from + i}, ${String(from + i).padStart(100, '0')})`);
        await sql`insert into probe (id, v) values ${sql.join(values)}`.execute(trx);
      }
    });
    const before = tempFilesOpen();
    let during = -1;
    await kysely.transaction().execute(async (trx) => {
      await sql`update probe set v = v || 'x'`.execute(trx);
      during = tempFilesOpen();
    });
    const { rows } = await sql<{ n: number }>`select count(*) as n from probe where v like '%x'`.execute(kysely);
    return { tempFiles: during - before, changed: Number(rows[0]!.n) };
  } finally {
    await db.close();
  }
}

describe("the SQLite commit thread's connection", () => {
  const dir = mkdtempSync(join(tmpdir(), 'tapproof-temp-store-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("by default SQLite spills a big statement's journal into a temp file", async () => {
    assert.deepEqual(await bigStatement(join(dir, 'default.db'), {}), { tempFiles: 1, changed: ROWS });
  });

  test("the commit thread's connection keeps it in memory: no temp file, every row changed", async () => {
    assert.deepEqual(await bigStatement(join(dir, 'writer.db'), COMMIT_CONNECTION), { tempFiles: 0, changed: ROWS });
  });

  test("its page cache is 8 MiB, the default connection's 32 MiB", async () => {
    const cacheKiB = async (name: string, options: OpenOptions) => {
      const db = openDatabase({ kind: 'sqlite', path: join(dir, name) }, options);
      try {
        const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(db.kysely);
        return -Number(rows[0]!.cache_size);
      } finally {
        await db.close();
      }
    };
    assert.deepEqual([await cacheKiB('cache-writer.db', COMMIT_CONNECTION), await cacheKiB('cache-default.db', {})], [8 * 1024, 32 * 1024]);
  });
});
