// A PostgreSQL database shared by many schemas (deployments, parallel test runs): migrating one schema
// must not read, and so must not trip over, the others while they are created, altered and dropped.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { after, test } from 'node:test';
import pg from 'pg';
import { migrate } from '../../src/db/migrations.js';
import { POSTGRES_URL, freshStorage } from '../kit/harness.js';

const admin = new pg.Client({ connectionString: POSTGRES_URL });
await admin.connect();
after(() => admin.end());
const migrations = readdirSync(new URL('../../src/db/migrations/', import.meta.url)).filter((f) => /^\d{4}_/.test(f)).length;

/** Other schemas with a `teams` table coming and going, until `stop` says so. */
async function churn(stop: { done: boolean }): Promise<number> {
  let rounds = 0;
  while (!stop.done) {
    const schema = `churn_${randomBytes(6).toString('hex')}`;
    await admin.query(`create schema ${schema}`);
    await admin.query(`create table ${schema}.teams (id text primary key, name text, n serial)`);
    await admin.query(`alter table ${schema}.teams drop column name`);
    await admin.query(`drop schema ${schema} cascade`);
    rounds++;
  }
  return rounds;
}

test('migrating a schema while other schemas are created, altered and dropped applies every migration', async () => {
  const stop = { done: false };
  const churning = churn(stop);
  try {
    for (let i = 0; i < 6; i++) {
      const storage = await freshStorage('postgres');
      const db = storage.open();
      try {
        const applied = await migrate(db);
        assert.equal(applied.length, migrations);
        // A second run finds everything applied.
        assert.deepEqual(await migrate(db), []);
      } finally {
        await db.close();
        await storage.drop();
      }
    }
  } finally {
    stop.done = true;
  }
  assert.ok((await churning) > 0);
});
