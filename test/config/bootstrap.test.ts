// The first-start bootstrap claims the database, creates team `default` and its
// sandbox key in one transaction: a failure part-way leaves nothing behind, so
// the next start bootstraps again.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bootstrapIfEmpty } from '../../src/bootstrap.js';
import { migrate } from '../../src/db/migrations.js';
import { DATABASES, freshStorage } from '../kit/harness.js';

// A stopped clock: the marker records the context's time, not the machine's.
const clock = { nowMicros: () => 1_800_000_000_123_456 };

for (const kind of DATABASES) {
  describe(`bootstrap (${kind})`, () => {
    test('a failure while creating the key leaves no marker and no team; the next start bootstraps', async () => {
      const storage = await freshStorage(kind);
      const db = storage.open();
      try {
        await migrate(db);
        // A real failure between the team and the key: the key's insert hits a missing table.
        await db.kysely.schema.alterTable('api_keys').renameTo('api_keys_away').execute();
        await assert.rejects(bootstrapIfEmpty({ db, clock }));
        assert.deepEqual(await db.kysely.selectFrom('settings').select('name').where('name', '=', 'bootstrapped').execute(), []);
        assert.deepEqual(await db.kysely.selectFrom('teams').select('id').execute(), []);

        await db.kysely.schema.alterTable('api_keys_away').renameTo('api_keys').execute();
        const boot = await bootstrapIfEmpty({ db, clock });
        assert.ok(boot, 'bootstrapped on the next start');
        const teams = await db.kysely.selectFrom('teams').select(['id', 'name']).execute();
        assert.deepEqual(teams, [{ id: boot.teamId, name: 'default' }]);
        assert.deepEqual(await db.kysely.selectFrom('settings').select('value').where('name', '=', 'bootstrapped').execute(), [
          { value: '2027-01-15T08:00:00.123456Z' },
        ]);
        assert.equal(await bootstrapIfEmpty({ db, clock }), null, 'only once');
      } finally {
        await db.close();
        await storage.drop();
      }
    });
  });
}
