// A statement whose values are each one parameter is compiled once and then only filled: each
// value reaches its own place whatever order the text binds them in, and a statement that binds
// a value of its own (its text would then depend on it) is refused rather than cached wrongly.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { executeCompiledOnce } from '../../src/db/precompiled.js';
import { DATABASES, sharedServer } from '../kit/harness.js';

for (const kind of DATABASES) {
  describe(`statements compiled once (${kind})`, () => {
    const suite = sharedServer(kind);

    test('values bound out of order reach their places on every run; the text is compiled once', async () => {
      const db = suite.server.ctx.db.kysely;
      let compiled = 0;
      const run = (values: unknown[]) =>
        executeCompiledOnce<{ x: string; y: string; z: string }>(db, `probe-${kind}`, values, (v) => {
          compiled++;
          return sql<{ x: string; y: string; z: string }>`select ${v[2]} as x, ${v[0]} as y, ${v[1]} as z`.compile(db);
        });
      assert.deepEqual(await run(['a', 'b', 'c']), [{ x: 'c', y: 'a', z: 'b' }]);
      assert.deepEqual(await run(['d', 'e', 'f']), [{ x: 'f', y: 'd', z: 'e' }]);
      assert.equal(compiled, 1);
    });

    test('a statement that binds a value of its own, or leaves one of the values out, is refused', async () => {
      const db = suite.server.ctx.db.kysely;
      await assert.rejects(
        executeCompiledOnce(db, `own-${kind}`, ['a'], (v) => sql`select ${v[0]} as x, ${'own'} as y`.compile(db)),
        /own-\w+: the statement binds values other than its own/,
      );
      await assert.rejects(
        executeCompiledOnce(db, `short-${kind}`, ['a', 'b'], (v) => sql`select ${v[0]} as x`.compile(db)),
        /short-\w+: the statement binds values other than its own/,
      );
    });
  });
}
