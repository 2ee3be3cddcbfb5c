// One multi-row write of more values than either engine binds in one statement lands
// whole, in statements each under the limit.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { inChunks } from '../../src/db/chunked.js';
import { DATABASES, sharedServer } from '../kit/harness.js';

for (const kind of DATABASES) {
  describe(`chunked multi-row writes (${kind})`, () => {
    const suite = sharedServer(kind);
    test('10,000 rows of 7 columns (70,000 values) land in 3 statements of at most 30,000 values', async () => {
      const db = suite.server.ctx.db.kysely;
      await sql`create table chunk_probe (a text, b text, c text, d text, e text, f text, g integer)`.execute(db);
      const rows = Array.from({ length: 10_000 }, (_, i) => ({ a: `a${i}`, b: 'b', c: 'c', d: 'd', e: 'e', f: 'f', g: i }));
      const sizes: number[] = [];
      await inChunks(rows, async (part) => {
        sizes.push(part.length);
        await db
          .insertInto('chunk_probe' as any)
          .values(part)
          .execute();
      });
      assert.deepEqual(sizes, [4285, 4285, 1430]);
      const { rows: counted } = await sql<{ n: number; total: number }>`select count(*) as n, sum(g) as total from chunk_probe`.execute(db);
      assert.deepEqual({ n: Number(counted[0]!.n), total: Number(counted[0]!.total) }, { n: 10_000, total: (9_999 * 10_000) / 2 });
      await assert.rejects(
        db
          .insertInto('chunk_probe' as any)
          .values(rows)
          .execute(),
        'the same rows in one statement are refused by the engine',
      );
    });
  });
}
