// The group commit (src/db/group-commit.ts) with a fake executor: a Db whose transactions are recorded in
// memory and write kinds whose batches the test holds and releases, so batching, overlap and key locks are exact.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Db, Dialect, Executor } from '../../src/db/database.js';
import { CommittedBatchError } from '../../src/db/commit-thread.js';
import { GroupCommit, writeKindsOf, type WriteKind } from '../../src/db/group-commit.js';
import { Metrics } from '../../src/metrics.js';

interface TestWrite {
  kind: 'scan' | 'claim';
  id: string;
  /** The lock key; null holds none. */
  tag: string | null;
  /** Makes every batch holding it fail. */
  bad?: boolean;
}

/** One call of a kind's write: the ids it got, the transaction it ran in, and (when held) its release. */
interface Batch {
  ids: string[];
  trx: unknown;
  release(): void;
}

/** Every pending setImmediate, promise chain and pump has run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Resolves to 'fulfilled: …' or 'rejected: …' so that several outcomes compare in one assertion. */
const outcome = (p: Promise<unknown>) =>
  p.then(
    (value) => `fulfilled: ${String(value)}`,
    (error: unknown) => `rejected: ${error instanceof Error ? error.message : String(error)}`,
  );

function harness(dialect: Dialect, options: { hold?: boolean; unlocked?: (writes: TestWrite[]) => string[] | null } = {}) {
  const batches: Batch[] = [];
  const log: string[] = [];
  const TRX = { fake: 'transaction' };
  const fakeKysely = {
    transaction: () => ({
      async execute<T>(fn: (trx: unknown) => Promise<T>): Promise<T> {
        log.push('begin');
        try {
          const result = await fn(TRX);
          log.push('commit');
          return result;
        } catch (error) {
          log.push('rollback');
          throw error;
        }
      },
    }),
  };
  const db = {
    kysely: fakeKysely,
    dialect,
    atClose: () => undefined,
    close: async () => undefined,
  } as unknown as Db;
  const scans: WriteKind<TestWrite, string> = {
    kinds: ['scan'],
    lockKey: (write) => write.tag,
    write(trx, writes) {
      const ids = writes.map((w) => w.id);
      const bad = writes.find((w) => w.bad);
      const answer = () => {
        if (bad) throw new Error(`bad write ${bad.id}`);
        return ids.map((id) => `stored ${id}`);
      };
      if (!options.hold) {
        batches.push({ ids, trx, release: () => undefined });
        return Promise.resolve().then(answer);
      }
      return new Promise<string[]>((resolve, reject) => {
        batches.push({
          ids,
          trx,
          release: () => {
            try {
              resolve(answer());
            } catch (error) {
              reject(error as Error);
            }
          },
        });
      });
    },
    ...(options.unlocked && {
      async writeUnlocked(_db: Executor, writes: TestWrite[]) {
        log.push(`unlocked ${writes.map((w) => w.id).join(',')}`);
        return options.unlocked!(writes);
      },
    }),
  };
  const metrics = new Metrics();
  const commits = new GroupCommit(db, writeKindsOf([scans]), { writers: new URL('file:///nowhere/write-kinds.js'), thread: true, metrics });
  return {
    db,
    commits,
    batches,
    log,
    TRX,
    metrics,
    submit: (id: string, tag: string | null = null, bad = false) => {
      const write: TestWrite = { kind: 'scan', id, tag, bad };
      return commits.submit<string>(write);
    },
    /** The ids of each batch written so far. */
    sizes: () => batches.map((b) => b.ids.length),
    ids: () => batches.map((b) => b.ids.join(',')),
    /** Count and sum of the batch-size histogram. */
    async observed() {
      const { values } = await metrics.scanBatchSize.get();
      const value = (suffix: string) => values.find((v) => v.metricName === `tapproof_scan_batch_size_${suffix}`)!.value;
      return { count: value('count'), sum: value('sum') };
    },
    async paths() {
      const { values } = await metrics.scanBatches.get();
      return Object.fromEntries(values.map((v) => [String(v.labels.path), v.value]));
    },
  };
}

describe('group commit: batching', () => {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    test(`${dialect}: writes submitted in one turn share one transaction, each gets its own result`, async () => {
      const h = harness(dialect);
      const results = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => h.submit(id)));
      assert.deepEqual(results, ['stored a', 'stored b', 'stored c', 'stored d', 'stored e']);
      assert.deepEqual(h.ids(), ['a,b,c,d,e']);
      assert.equal(h.batches[0]!.trx, h.TRX, 'the kind writes in the transaction it is given');
      assert.deepEqual(h.log, ['begin', 'commit']);
      assert.deepEqual(await h.observed(), { count: 1, sum: 5 });
    });
  }

  test('nothing is written in the turn of the submit: the batch starts after it', async () => {
    const h = harness('sqlite');
    const result = h.submit('a');
    assert.deepEqual(h.batches, []);
    await settle();
    assert.deepEqual(h.ids(), ['a']);
    assert.equal(await result, 'stored a');
  });

  test('sqlite: writes arriving while a commit runs wait and are written together in the next one', async () => {
    const h = harness('sqlite', { hold: true });
    const first = h.submit('a');
    await settle();
    const later = [h.submit('b'), h.submit('c')];
    await settle();
    later.push(h.submit('d'));
    await settle();
    assert.deepEqual(h.ids(), ['a'], 'one commit at a time on SQLite');
    h.batches[0]!.release();
    assert.equal(await first, 'stored a');
    await settle();
    assert.deepEqual(h.ids(), ['a', 'b,c,d']);
    h.batches[1]!.release();
    assert.deepEqual(await Promise.all(later), ['stored b', 'stored c', 'stored d']);
    assert.deepEqual(await h.observed(), { count: 2, sum: 4 });
  });

  test('a batch holds at most 500 writes; the rest go in the next', async () => {
    const h = harness('sqlite');
    const all = Array.from({ length: 1001 }, (_, i) => h.submit(`w${i}`));
    const results = await Promise.all(all);
    assert.deepEqual(h.sizes(), [500, 500, 1]);
    assert.equal(results[1000], 'stored w1000');
    assert.deepEqual(h.batches[1]!.ids.slice(0, 2), ['w500', 'w501'], 'queue order is kept across batches');
    assert.deepEqual(await h.observed(), { count: 3, sum: 1001 });
  });
});

describe('group commit: parallel batches', () => {
  test('postgres: up to 3 batches commit at once; a fourth waits for one of them to end', async () => {
    const h = harness('postgres', { hold: true });
    const results = [];
    for (const id of ['a', 'b', 'c']) {
      results.push(h.submit(id));
      await settle();
    }
    assert.deepEqual(h.ids(), ['a', 'b', 'c'], 'three transactions overlap');
    results.push(h.submit('d'), h.submit('e'));
    await settle();
    assert.deepEqual(h.ids(), ['a', 'b', 'c']);
    h.batches[1]!.release();
    await settle();
    assert.deepEqual(h.ids(), ['a', 'b', 'c', 'd,e']);
    h.batches[0]!.release();
    h.batches[2]!.release();
    h.batches[3]!.release();
    assert.deepEqual(await Promise.all(results), ['stored a', 'stored b', 'stored c', 'stored d', 'stored e']);
    assert.deepEqual(h.log, ['begin', 'begin', 'begin', 'commit', 'begin', 'commit', 'commit', 'commit']);
  });

  test('sqlite: the same arrivals make one batch at a time', async () => {
    const h = harness('sqlite', { hold: true });
    const results = [];
    for (const id of ['a', 'b', 'c']) {
      results.push(h.submit(id));
      await settle();
    }
    assert.deepEqual(h.ids(), ['a']);
    h.batches[0]!.release();
    await settle();
    assert.deepEqual(h.ids(), ['a', 'b,c']);
    h.batches[1]!.release();
    assert.deepEqual(await Promise.all(results), ['stored a', 'stored b', 'stored c']);
    assert.deepEqual(h.log, ['begin', 'commit', 'begin', 'commit']);
  });
});

describe('group commit: lock keys', () => {
  test('postgres: a write whose key a running batch holds waits, and so does every later write with that key', async () => {
    const h = harness('postgres', { hold: true });
    const first = h.submit('a1', 'tag_a');
    await settle();
    const rest = [h.submit('a2', 'tag_a'), h.submit('b1', 'tag_b'), h.submit('n1', null), h.submit('a3', 'tag_a')];
    await settle();
    assert.deepEqual(h.ids(), ['a1', 'b1,n1'], 'tag_b and keyless writes overlap with tag_a’s batch');
    h.batches[0]!.release();
    await first;
    await settle();
    assert.deepEqual(h.ids(), ['a1', 'b1,n1', 'a2,a3'], 'tag_a’s later writes, in their order, once its batch ended');
    h.batches[1]!.release();
    h.batches[2]!.release();
    assert.deepEqual(await Promise.all(rest), ['stored a2', 'stored b1', 'stored n1', 'stored a3']);
  });

  test('postgres: a batch whose every write is held back starts nothing until the key is free', async () => {
    const h = harness('postgres', { hold: true });
    const first = h.submit('a1', 'tag_a');
    await settle();
    const second = h.submit('a2', 'tag_a');
    await settle();
    assert.deepEqual(h.ids(), ['a1']);
    h.batches[0]!.release();
    await settle();
    assert.deepEqual(h.ids(), ['a1', 'a2']);
    h.batches[1]!.release();
    assert.deepEqual([await first, await second], ['stored a1', 'stored a2']);
  });

  test('postgres: keys are held per batch; a key free again after its batch may be taken by another batch while others run', async () => {
    const h = harness('postgres', { hold: true });
    const results = [h.submit('a1', 'tag_a')];
    await settle();
    results.push(h.submit('b1', 'tag_b'));
    await settle();
    results.push(h.submit('a2', 'tag_a'), h.submit('b2', 'tag_b'));
    await settle();
    assert.deepEqual(h.ids(), ['a1', 'b1']);
    h.batches[1]!.release();
    await settle();
    assert.deepEqual(h.ids(), ['a1', 'b1', 'b2'], 'tag_b is free, tag_a is not');
    h.batches[0]!.release();
    await settle();
    assert.deepEqual(h.ids(), ['a1', 'b1', 'b2', 'a2']);
    h.batches[2]!.release();
    h.batches[3]!.release();
    assert.deepEqual(await Promise.all(results), ['stored a1', 'stored b1', 'stored a2', 'stored b2']);
  });
});

describe('group commit: failures', () => {
  test('a failing batch is rolled back and each write tried alone in order: only the bad one is refused', async () => {
    const h = harness('sqlite');
    const results = [h.submit('a'), h.submit('x', null, true), h.submit('c')].map(outcome);
    assert.deepEqual(await Promise.all(results), ['fulfilled: stored a', 'rejected: bad write x', 'fulfilled: stored c']);
    assert.deepEqual(h.ids(), ['a,x,c', 'a', 'x', 'c']);
    assert.deepEqual(h.log, ['begin', 'rollback', 'begin', 'commit', 'begin', 'rollback', 'begin', 'commit']);
    assert.deepEqual(await h.observed(), { count: 2, sum: 2 }, 'the batch-size histogram counts committed batches only');
  });

  test('a failing batch of one write rejects it with the error, without another try', async () => {
    const h = harness('postgres');
    await assert.rejects(h.submit('x', null, true), { message: 'bad write x' });
    assert.deepEqual(h.ids(), ['x']);
    assert.deepEqual(await h.observed(), { count: 0, sum: 0 });
  });

  test('later batches still commit after a failing one', async () => {
    const h = harness('sqlite', { hold: true });
    const failing = outcome(h.submit('x', null, true));
    await settle();
    const next = outcome(h.submit('b'));
    await settle();
    h.batches[0]!.release();
    assert.equal(await failing, 'rejected: bad write x');
    await settle();
    h.batches[1]!.release();
    assert.equal(await next, 'fulfilled: stored b');
    assert.deepEqual(h.ids(), ['x', 'b']);
  });

  test('a batch that committed without known durability (CommittedBatchError) rejects all its writes, none tried again', async () => {
    const h = harness('sqlite');
    const fsyncFailed = new CommittedBatchError('fsync failed after commit');
    const kinds = writeKindsOf([
      {
        kinds: ['scan'],
        write: async (_trx, writes: TestWrite[]) => {
          h.batches.push({ ids: writes.map((w) => w.id), trx: _trx, release: () => undefined });
          throw fsyncFailed;
        },
      },
    ]);
    const commits = new GroupCommit(h.db, kinds, { writers: new URL('file:///nowhere.js'), thread: false, metrics: h.metrics });
    const writes: TestWrite[] = ['a', 'b'].map((id) => ({ kind: 'scan', id, tag: null }));
    const results = writes.map((write) => commits.submit(write).catch((error: unknown) => error));
    assert.deepEqual(await Promise.all(results), [fsyncFailed, fsyncFailed]);
    assert.deepEqual(h.ids(), ['a,b']);
  });
});

describe('group commit: writes without a transaction', () => {
  test('a kind that writes the batch as seen takes no transaction, and the metric counts as_seen', async () => {
    const h = harness('postgres', { unlocked: (writes) => writes.map((w) => `seen ${w.id}`) });
    assert.deepEqual(await Promise.all([h.submit('a'), h.submit('b')]), ['seen a', 'seen b']);
    assert.deepEqual(h.log, ['unlocked a,b']);
    assert.deepEqual(h.batches, []);
    assert.deepEqual(await h.paths(), { as_seen: 1 });
  });

  test('a kind that cannot write this batch as seen (null) falls back to the transaction, counted locked', async () => {
    const h = harness('postgres', { unlocked: () => null });
    assert.deepEqual(await Promise.all([h.submit('a'), h.submit('b')]), ['stored a', 'stored b']);
    assert.deepEqual(h.log, ['unlocked a,b', 'begin', 'commit']);
    assert.deepEqual(await h.paths(), { locked: 1 });
  });

  test('without any kind that writes unlocked, the metric of paths stays empty', async () => {
    const h = harness('postgres');
    await h.submit('a');
    assert.deepEqual(await h.paths(), {});
  });
});

describe('group commit: the commit thread', () => {
  test('a SQLite file with thread on ties a commit thread to the Db’s close; without a file or with thread off, none', async () => {
    const closers: unknown[] = [];
    const base = { kysely: {}, atClose: (stop: unknown) => closers.push(stop), close: async () => undefined };
    const options = (thread: boolean) => ({ writers: new URL('file:///nowhere.js'), thread, metrics: {} as Metrics });
    const kinds = writeKindsOf([]);
    new GroupCommit({ ...base, dialect: 'sqlite' } as unknown as Db, kinds, options(true));
    new GroupCommit({ ...base, dialect: 'sqlite', file: '/nowhere/db.sqlite' } as unknown as Db, kinds, options(false));
    new GroupCommit({ ...base, dialect: 'postgres', file: '/nowhere/db.sqlite' } as unknown as Db, kinds, options(true));
    assert.equal(closers.length, 0);
    new GroupCommit({ ...base, dialect: 'sqlite', file: '/nowhere/db.sqlite' } as unknown as Db, kinds, options(true));
    assert.equal(closers.length, 1);
    // The thread starts with its first batch: stopping one that never ran returns at once.
    await (closers[0] as () => Promise<void>)();
  });
});

describe('writeKindsOf', () => {
  const claims: WriteKind<TestWrite, string> = {
    kinds: ['claim'],
    write: async (_trx, writes) => writes.map((w) => `claim ${w.id}`),
    carry: (write, result) => result.length,
    restore: (write, carried) => `claim ${write.id} (${String(carried)})`,
  };
  const scans: WriteKind<TestWrite, string> = {
    kinds: ['scan'],
    lockKey: (write) => write.tag,
    write: async (_trx, writes) => writes.map((w) => `scan ${w.id}`),
  };
  const w = (kind: TestWrite['kind'], id: string, tag: string | null = null): TestWrite => ({ kind, id, tag });

  test('a mixed batch: each kind writes its own writes together, kinds in registration order, results in place', async () => {
    const calls: string[] = [];
    const record = (kind: WriteKind<TestWrite, string>): WriteKind<TestWrite, string> => ({
      ...kind,
      write: (trx, writes) => {
        calls.push(`${kind.kinds[0]}: ${writes.map((x) => x.id).join(',')}`);
        return kind.write(trx, writes);
      },
    });
    const kinds = writeKindsOf([record(claims), record(scans)]);
    const results = await kinds.write({} as Executor, [w('scan', 's1'), w('claim', 'c1'), w('scan', 's2'), w('claim', 'c2')]);
    assert.deepEqual(calls, ['claim: c1,c2', 'scan: s1,s2']);
    assert.deepEqual(results, ['scan s1', 'claim c1', 'scan s2', 'claim c2']);
  });

  test('lock keys come from the kind, null when it has none; an unknown kind throws', () => {
    const kinds = writeKindsOf([claims, scans]);
    assert.equal(kinds.lockKey(w('scan', 's', 'tag_1')), 'tag_1');
    assert.equal(kinds.lockKey(w('claim', 'c', 'tag_1')), null);
    assert.throws(() => kinds.lockKey({ kind: 'other' }), { message: 'no writer for writes of kind other' });
  });

  test('carry and restore use the kind’s own, else pass the result through', () => {
    const kinds = writeKindsOf([claims, scans]);
    const writes = [w('claim', 'c1'), w('scan', 's1')];
    const carried = kinds.carry(writes, ['claim c1', 'scan s1']);
    assert.deepEqual(carried, [8, 'scan s1']);
    assert.deepEqual(kinds.restore(writes, carried), ['claim c1 (8)', 'scan s1']);
  });

  test('writeUnlocked exists only when a kind offers it, and answers null for a mixed batch', async () => {
    assert.equal('writeUnlocked' in writeKindsOf([claims, scans]), false);
    const unlockedScans: WriteKind<TestWrite, string> = { ...scans, writeUnlocked: async (_db, writes) => writes.map((x) => `as seen ${x.id}`) };
    const kinds = writeKindsOf([claims, unlockedScans]);
    assert.deepEqual(await kinds.writeUnlocked!({} as Executor, [w('scan', 's1'), w('scan', 's2')]), ['as seen s1', 'as seen s2']);
    assert.equal(await kinds.writeUnlocked!({} as Executor, [w('scan', 's1'), w('claim', 'c1')]), null);
    assert.equal(await kinds.writeUnlocked!({} as Executor, [w('claim', 'c1')]), null, 'a kind without it');
  });
});
