// A SQLite statement that changes many existing pages inside a transaction keeps a statement journal; SQLite's
// default spills it past 64 KiB into a file it creates and deletes in a temp directory (one more file written per
// such commit). openDatabase keeps it in memory (temp_store = MEMORY). A spilled journal stays open, already
// deleted, until its transaction ends, which is how the test sees it.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '../../src/db/database.js';

/** The temp files SQLite holds open in this process (its names start with etilqs_). */
const spilledJournals = () =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).includes('etilqs_');
    } catch {
      return false;
    }
  }).length;

// ~60 pages of table and unique index, all changed by one statement that may abort on a duplicate.
const ROWS = 2_000;

describe('SQLite statement journals (temp_store)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tapproof-temp-store-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("without the setting, SQLite spills a big statement's journal into a temp file (the control)", () => {
    const raw = new SQLite(join(dir, 'raw.db'));
    raw.pragma('journal_mode = WAL');
    raw.exec('create table probe (id integer primary key, v text not null unique)');
    const insert = raw.prepare('insert into probe (id, v) values (?, ?)');
    raw.transaction(() => {
      for (let i = 1; i <= ROWS; i++) insert.run(i, String(i).padStart(100, '0'));
    })();
    const before = spilledJournals();
    raw.exec('begin');
    raw.exec("update probe set v = v || 'x'");
    const during = spilledJournals();
    raw.exec('commit');
    raw.close();
    assert.equal(during - before, 1);
  });

  test('a connection from openDatabase keeps it in memory: no temp file, and every row changed', async () => {
    const db = openDatabase({ kind: 'sqlite', path: join(dir, 'ours.db') });
    const kysely = db.kysely as unknown as Kysely<Record<string, never>>;
    try {
      await sql`create table probe (id integer primary key, v text not null unique)`.execute(kysely);
      await kysely.transaction().execute(async (trx) => {
        for (let from = 1; from <= ROWS; from += 500) {
          const values = Array.from({ length: 500 }, (_, i) => sql`(${from + i}, ${String(from + i).padStart(100, '0')})`);
          await sql`insert into probe (id, v) values ${sql.join(values)}`.execute(trx);
        }
      });
      const before = spilledJournals();
      let during = -1;
      await kysely.transaction().execute(async (trx) => {
        await sql`update probe set v = v || 'x'`.execute(trx);
        during = spilledJournals();
      });
      assert.equal(during - before, 0);
      const { rows } = await sql<{ n: number }>`select count(*) as n from probe where v like '%x'`.execute(kysely);
      assert.equal(Number(rows[0]!.n), ROWS);
    } finally {
      await db.close();
    }
  });
});
