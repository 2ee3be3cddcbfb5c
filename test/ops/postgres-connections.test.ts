// PostgreSQL closing a server's idle connections (a restart, a failover,
// pg_terminate_backend) must not end the process: one line, then the next
// request reconnects.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { DATABASES, POSTGRES_URL, freshStorage, type Storage } from '../kit/harness.js';
import { startServe } from '../cli/process.js';

if (DATABASES.includes('postgres')) {
  describe('PostgreSQL closes the server’s connections', () => {
    let storage: Storage;
    after(() => storage?.drop());

    test('the server stays up, says so once, and answers from new connections', { timeout: 600_000 }, async () => {
      storage = await freshStorage('postgres');
      // A name of our own, so that only this server's connections are closed.
      const name = `tapproof_ops_${randomBytes(4).toString('hex')}`;
      const url = new URL(storage.env.DATABASE_URL!);
      url.searchParams.set('application_name', name);
      const server = await startServe({ ...storage.env, DATABASE_URL: url.toString() });
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      try {
        assert.equal((await fetch(`${server.origin}/readyz`)).status, 200);
        const closed = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [name]);
        assert.ok(closed.rowCount! >= 1, 'the server had a connection open');
        // The pool reports the closed connection asynchronously; wait for its line.
        while (!server.stderr().includes('PostgreSQL connection was closed') && server.child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
        // Each closed connection is dropped from the pool as its own error arrives: with several closed, a
        // request may still meet one whose error is on its way, but no more than one per closed connection.
        let ready = await fetch(`${server.origin}/readyz`);
        for (let stale = 1; ready.status !== 200 && stale < closed.rowCount!; stale++) ready = await fetch(`${server.origin}/readyz`);
        assert.equal(ready.status, 200);
        assert.deepEqual(await ready.json(), { status: 'ok', database: 'ok' });
        assert.equal(server.child.exitCode, null, 'still running');
        const lines = server
          .stderr()
          .split('\n')
          .filter((l) => l !== '');
        assert.deepEqual(lines, ['tapproof: a PostgreSQL connection was closed (57P01); reconnecting on the next query']);
      } finally {
        await admin.end();
        assert.equal(await server.stop(), 0);
      }
    });
  });
}
