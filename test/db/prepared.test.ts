// Named prepared statements on PostgreSQL (src/db/database.ts): a statement whose text opens with
// `/* prepared: NAME */` is parsed once per connection; every other one stays unnamed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, preparedName, type Db } from '../../src/db/database.js';
import { DATABASES, POSTGRES_URL } from '../kit/harness.js';

test('the name is read from the opening comment only', () => {
  assert.equal(preparedName('/* prepared: tapproof_lock_chips */ SELECT 1'), 'tapproof_lock_chips');
  assert.equal(preparedName('SELECT 1 /* prepared: late */'), undefined);
  assert.equal(preparedName('/* prepared: unclosed SELECT 1'), undefined);
  assert.equal(preparedName('/* prepared:  */ SELECT 1'), undefined);
  assert.equal(preparedName('select 1'), undefined);
});

if (DATABASES.includes('postgres')) {
  let db: Db;
  // One connection, so that the session whose prepared statements we read is the one that ran them.
  before(() => (db = openDatabase({ kind: 'postgres', url: POSTGRES_URL }, { poolSize: 1 })));
  after(() => db.close());

  const prepared = async () =>
    (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements order by name`.execute(db.kysely)).rows;

  test('a marked statement is prepared once per connection and reused with other values; an unmarked one is not prepared', async () => {
    assert.deepEqual(await prepared(), []);
    const echo = (n: number) => sql<{ n: number }>`/* prepared: tapproof_test_echo */ select ${n}::int + 1 as n`.execute(db.kysely);
    assert.deepEqual((await echo(1)).rows, [{ n: 2 }]);
    assert.deepEqual((await echo(41)).rows, [{ n: 42 }]);
    await sql`select ${3}::int as unmarked`.execute(db.kysely);
    const rows = await prepared();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.name, 'tapproof_test_echo');
    assert.match(rows[0]!.statement, /^\/\* prepared: tapproof_test_echo \*\/ select \$1::int \+ 1 as n$/);
  });

  test('inside a transaction too, and a failed prepared statement leaves the connection usable', async () => {
    const fail = db.kysely.transaction().execute(async (trx) => {
      await sql`/* prepared: tapproof_test_divide */ select 1 / ${0}::int as n`.execute(trx);
    });
    await assert.rejects(fail, (error: { code?: string }) => error.code === '22012');
    const { rows } = await db.kysely
      .transaction()
      .execute((trx) => sql<{ n: number }>`/* prepared: tapproof_test_divide */ select 1 / ${1}::int as n`.execute(trx));
    assert.deepEqual(rows, [{ n: 1 }]);
    assert.deepEqual(
      (await prepared()).map((r) => r.name),
      ['tapproof_test_divide', 'tapproof_test_echo'],
    );
  });
}
