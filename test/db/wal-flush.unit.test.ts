// The commit thread's group fsync of the SQLite WAL (src/db/wal-flush.ts), on a real file.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { WalFlush } from '../../src/db/wal-flush.js';

const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tapproof-wal-'));
  const path = join(dir, 'db.sqlite-wal');
  writeFileSync(path, 'frames');
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
};

const flushed = (wal: WalFlush) => new Promise<Error | null>((resolve) => wal.after(resolve));

test('every waiter is called once, without error, in the order it asked', async () => {
  const file = tempFile();
  const wal = new WalFlush(file.path);
  const order: number[] = [];
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, i) => new Promise<Error | null>((resolve) => wal.after((error) => (order.push(i), resolve(error))))),
  );
  assert.deepEqual(results, [null, null, null, null, null]);
  assert.deepEqual(order, [0, 1, 2, 3, 4]);
  await wal.close();
  file.remove();
});

test('a waiter that asks while an fsync is under way is answered by a later one, not by it', async () => {
  const file = tempFile();
  const wal = new WalFlush(file.path);
  const events: string[] = [];
  const first = new Promise<void>((resolve) =>
    wal.after(() => {
      events.push('first');
      // Waiters covered by one fsync are called in one synchronous loop, before this microtask.
      queueMicrotask(() => events.push('after the first fsync'));
      resolve();
    }),
  );
  // Asked after the first fsync began (it is under way until its callback): must wait for the next.
  const second = new Promise<void>((resolve) =>
    wal.after(() => {
      events.push('second');
      resolve();
    }),
  );
  await Promise.all([first, second]);
  assert.deepEqual(events, ['first', 'after the first fsync', 'second']);
  await wal.close();
  file.remove();
});

test('a WAL that cannot be opened fails its waiters with the error; close still ends', async () => {
  const wal = new WalFlush(join(tmpdir(), `tapproof-missing-${process.pid}`, 'db.sqlite-wal'));
  const [a, b] = await Promise.all([flushed(wal), flushed(wal)]);
  assert.equal((a as NodeJS.ErrnoException).code, 'ENOENT');
  assert.equal((b as NodeJS.ErrnoException).code, 'ENOENT');
  await wal.close();
});

test('close waits for the fsync under way', async () => {
  const file = tempFile();
  const wal = new WalFlush(file.path);
  let answered = false;
  wal.after(() => (answered = true));
  await wal.close();
  assert.equal(answered, true);
  file.remove();
});
