// Connections for the two supported databases. Everything above this module
// talks to Kysely; where SQL text or the cheapest statement shape differs
// (migrations, the group commit's statements, prepared statements) the code asks
// `Db.dialect` or `onPostgres` (docs/architecture.md, engines).
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type DialectAdapter,
  type KyselyConfig,
  type Driver,
  type PostgresPool,
  type PostgresPoolClient,
  type SqliteDatabase,
  type Transaction,
  type TransactionBuilder,
} from 'kysely';
import type { DatabaseTarget } from '../config.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';
export type Executor = Kysely<Database> | Transaction<Database>;

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /**
   * SQLite file databases: a file beside the database that `keys revoke` rewrites
   * after committing, so that servers (watching it) drop cached principals.
   */
  revocationsFile?: string;
  /** SQLite file databases: the file, for connections of other threads (the group commit's commit thread, src/db/commit-thread.ts). */
  file?: string;
  /** Runs `stop` first when the Db closes (threads tied to this connection). */
  atClose(stop: () => Promise<void>): void;
  close(): Promise<void>;
}

// int8 and numeric come back from pg as strings by default; all our integers
// (microsecond times, counters) fit in a double exactly (< 2^53).
pg.types.setTypeParser(20, (v) => Number(v));

// A deferred SQLite transaction that reads first and writes later fails with
// SQLITE_BUSY when another process (the CLI, a worker) wrote in between.
// Taking the write lock up front makes busy_timeout apply instead.
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  // A SQLite Db has one connection, which a transaction holds until it ends: a query through the Db itself
  // (not the transaction) from inside the transaction's work would wait for it for ever, and the process
  // would end with no word (Node's exit code 13). Said at once instead, as the bug it is.
  override async acquireConnection(): Promise<DatabaseConnection> {
    const open = openTransaction.getStore();
    if (open?.driver === this && open.open) {
      throw new Error(
        'database used outside its transaction inside a transaction: on SQLite the transaction holds the one connection, so a query through the database handle (db.kysely) would wait for it for ever; run it on the transaction (trx), or before or after it',
      );
    }
    return super.acquireConnection();
  }
}

/** The SQLite transaction whose work is running, for the driver to refuse a nested use of the database. */
const openTransaction = new AsyncLocalStorage<{ driver: SqliteDriver; open: boolean }>();

// The Kysely of a SQLite Db marks the work of each of its transactions (every feature starts them with
// `db.kysely.transaction().execute(…)`), so that the driver can tell a nested use from a concurrent one.
class SqliteKysely extends Kysely<Database> {
  constructor(
    config: KyselyConfig,
    private readonly driver: SqliteDriver,
  ) {
    super(config);
  }

  override transaction(): TransactionBuilder<Database> {
    const builder = super.transaction();
    const driver = this.driver;
    return new Proxy(builder, {
      get(target, property) {
        if (property !== 'execute') {
          const value = Reflect.get(target, property, target) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        }
        return <T>(work: (trx: Transaction<Database>) => Promise<T>) =>
          target.execute(async (trx) => {
            const mark = { driver, open: true };
            try {
              return await openTransaction.run(mark, () => work(trx));
            } finally {
              // Work the transaction started and left running (a timer, a promise not awaited) may use the Db later.
              mark.open = false;
            }
          });
      },
    });
  }
}

// SQLite runs DDL in transactions. Told so, Kysely's migrator applies the pending migrations in one
// transaction, which begins immediate: processes started together on a new file (two servers) take turns
// instead of both creating the same tables.
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

// Kysely's SQLite driver prepares every statement anew, which costs more than
// running a point lookup. Short statements (the per-request queries) are kept
// prepared, most recently used last; long ones (multi-row inserts) are not, so
// the cache stays small whatever the batch sizes.
const STATEMENT_CACHE_SIZE = 200;
const CACHEABLE_SQL_LENGTH = 4096;

function cachingStatements(sqlite: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      if (text.length > CACHEABLE_SQL_LENGTH) return sqlite.prepare(text);
      const cached = statements.get(text);
      // A statement still iterating (a stream) cannot run again until it finishes.
      if (cached !== undefined && cached.busy) return sqlite.prepare(text);
      if (cached !== undefined) {
        statements.delete(text);
        statements.set(text, cached);
        return cached;
      }
      const statement = sqlite.prepare(text);
      statements.set(text, statement);
      if (statements.size > STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      return statement;
    },
  };
}

// Checkpoints (copying the WAL back into the database file, with its fsyncs)
// are the slow part of a big commit when the committing connection runs them
// itself. A long-running process hands them to a thread with its own
// connection; a PASSIVE checkpoint never blocks readers or writers. The main
// connection keeps a high auto-checkpoint threshold as a safety net.
const CHECKPOINT_INTERVAL_MS = 250;
const SAFETY_AUTOCHECKPOINT_PAGES = 10_000;

function startCheckpointer(path: string): () => Promise<void> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const db = new (require(workerData.module))(workerData.path);
     db.pragma('busy_timeout = 5000');
     const checkpoint = () => { try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {} };
     const timer = setInterval(checkpoint, workerData.interval);
     parentPort.once('message', () => { clearInterval(timer); checkpoint(); db.close(); parentPort.close(); });`,
    { eval: true, workerData: { module: createRequire(import.meta.url).resolve('better-sqlite3'), path, interval: CHECKPOINT_INTERVAL_MS } },
  );
  worker.unref();
  return () =>
    new Promise((resolve) => {
      worker.once('exit', () => resolve());
      // Waited for, it must keep the process alive: a process closing its Db with nothing else to do (a start that
      // failed) would otherwise end before the thread does, with Node's exit code 13 and no word.
      worker.ref();
      worker.postMessage('stop');
    });
}

export interface OpenOptions {
  poolSize?: number;
  schema?: string;
  /**
   * SQLite: who checkpoints the WAL. `inline` (default): the committing connection, as SQLite does.
   * `background`: a thread of this Db's own (long-running processes: serve, worker). `elsewhere`:
   * another connection's background thread in this process does (the commit thread's connection);
   * this one keeps only the far safety threshold.
   */
  checkpoints?: 'inline' | 'background' | 'elsewhere';
  /**
   * SQLite: `commit` (default): every commit waits for the WAL's fsync (synchronous=FULL).
   * `caller`: a commit only writes the WAL (synchronous=NORMAL) and the caller fsyncs the WAL file
   * itself before it reports the commit as done (the commit thread, src/db/wal-flush.ts).
   */
  walFlush?: 'commit' | 'caller';
  /**
   * SQLite: where statement journals, temporary tables and sorts live. `file` (default): SQLite's own choice,
   * which spills past 64 KiB into files it creates and deletes in a temp directory. `memory`: never a file, for
   * a connection whose transactions and sorts are bounded (the commit thread's batches); elsewhere a sort over a
   * whole table (a migration's backfill) would have to fit in memory.
   */
  tempStore?: 'file' | 'memory';
  /**
   * SQLite: this connection's page cache. 32 MiB by default (SQLite's is 2 MiB): a batch insert touches ~10
   * B-trees (tags' indexes, events). A connection's cache fills up to its size as the database grows.
   */
  cacheMiB?: number;
  /**
   * SQLite: refuse at once a query through the Db from inside one of its own transactions (which would wait for
   * ever for the connection the transaction holds). It marks each transaction's work with an AsyncLocalStorage,
   * which on Node 20 tracks every promise of the process: one-shot commands turn it on (src/cli.ts), the
   * servers, whose verify path is made of promises, do not.
   */
  catchNestedUse?: boolean;
}

export function openDatabase(target: DatabaseTarget, options: OpenOptions = {}): Db {
  if (target.kind === 'sqlite') {
    if (target.path !== ':memory:') mkdirSync(dirname(target.path), { recursive: true });
    const sqlite = new SQLite(target.path);
    // First: switching a new file to WAL takes a lock, and processes started together (two servers on
    // a fresh file) must wait for each other rather than fail with SQLITE_BUSY.
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('journal_mode = WAL');
    // FULL keeps a committed transaction through power loss, not only process crashes. NORMAL leaves
    // the WAL's fsync to a caller that does it before anyone learns of the commit (walFlush: 'caller').
    sqlite.pragma(options.walFlush === 'caller' ? 'synchronous = NORMAL' : 'synchronous = FULL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`cache_size = -${(options.cacheMiB ?? 32) * 1024}`);
    if (options.tempStore === 'memory') sqlite.pragma('temp_store = MEMORY');
    const stopCheckpointer = options.checkpoints === 'background' && target.path !== ':memory:' ? startCheckpointer(target.path) : null;
    if (stopCheckpointer || options.checkpoints === 'elsewhere') sqlite.pragma(`wal_autocheckpoint = ${SAFETY_AUTOCHECKPOINT_PAGES}`);
    const database = cachingStatements(sqlite);
    const driver = new ImmediateSqliteDriver({ database });
    const dialect = new (class extends SqliteDialect {
      override createDriver(): Driver {
        return driver;
      }
      override createAdapter(): DialectAdapter {
        return new TransactionalDdlSqliteAdapter();
      }
    })({ database });
    const kysely = options.catchNestedUse ? new SqliteKysely({ dialect }, driver) : new Kysely<Database>({ dialect });
    const closers: (() => Promise<void>)[] = [];
    return {
      kysely,
      dialect: 'sqlite',
      ...(target.path !== ':memory:' ? { revocationsFile: `${target.path}-revocations`, file: target.path } : {}),
      atClose: (stop) => void closers.push(stop),
      close: async () => {
        await Promise.all(closers.splice(0).map((stop) => stop()));
        await stopCheckpointer?.();
        await kysely.destroy();
      },
    };
  }
  const pool = new pg.Pool({
    connectionString: target.url,
    max: options.poolSize ?? 10,
    // A schema per test run keeps parallel suites apart on one database.
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle connection that PostgreSQL closes (a restart, a failover, an admin's
  // pg_terminate_backend) is reported on the pool; unhandled, that event would
  // end the process. The pool drops the connection and the next query opens a new one.
  let lastReport = 0;
  const report = (error: Error & { code?: string }) => {
    if (Date.now() - lastReport < 10_000) return;
    lastReport = Date.now();
    process.stderr.write(`tapproof: a PostgreSQL connection was closed (${error.code ?? error.message}); reconnecting on the next query\n`);
  };
  pool.on('error', report);
  // The pool listens to idle connections only: one closed while checked out but between queries (handed
  // out just as PostgreSQL closed it) emits its error on the client, which unheard would end the process.
  // Its query fails instead, and the pool drops it on release.
  pool.on('connect', (client) => client.on('error', report));
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparing(pool) }) });
  const closers: (() => Promise<void>)[] = [];
  return {
    kysely,
    dialect: 'postgres',
    atClose: (stop) => void closers.push(stop),
    close: async () => {
      await Promise.all(closers.splice(0).map((stop) => stop()));
      await kysely.destroy();
    },
  };
}

// node-postgres sends every query as an unnamed statement, which PostgreSQL parses
// and plans anew each time. The statements of the hot path (the group commit's,
// src/verifications/repository.ts) have one text whatever their row count
// (arrays, not value lists) and open with `/* prepared: NAME */`: they go out as
// named prepared statements, parsed and planned once per connection. A connection
// pooler must keep them (docs/operations.md, Connection poolers).
const PREPARED_PREFIX = '/* prepared: ';

/** The statement's name if its text asks to be prepared. */
export function preparedName(text: string): string | undefined {
  if (!text.startsWith(PREPARED_PREFIX)) return undefined;
  const end = text.indexOf(' */', PREPARED_PREFIX.length);
  return end > PREPARED_PREFIX.length ? text.slice(PREPARED_PREFIX.length, end) : undefined;
}

function preparing(pool: pg.Pool): PostgresPool {
  const patched = new WeakSet<pg.PoolClient>();
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      if (!patched.has(client)) {
        patched.add(client);
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        (client as { query: unknown }).query = (text: unknown, values?: unknown) => {
          const name = typeof text === 'string' ? preparedName(text) : undefined;
          return name === undefined ? query(text, values) : query({ name, text, values });
        };
      }
      return client as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}

/**
 * `SELECT … FOR UPDATE` on PostgreSQL; SQLite needs none (its write transactions
 * begin immediate, so a writer's reads are already serialized with every other writer).
 */
export function lockedForUpdate<Q extends { forUpdate(): Q }>(db: Executor, query: Q): Q {
  return onPostgres(db) ? query.forUpdate() : query;
}

/** For code that gets only an Executor (a transaction) and must still tell the engines apart. */
export function onPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * SQLite's `PRAGMA data_version`: the same number on one connection until another connection commits (its own
 * commits leave it), so inside a write transaction it tells whether anyone else has written since its last one.
 */
export async function sqliteDataVersion(db: Executor): Promise<number> {
  const { rows } = await sql<{ data_version: number }>`pragma data_version`.execute(db);
  return rows[0]!.data_version;
}

/** True when `error` is a unique-constraint violation on either engine. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | null;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True for errors that mean "try the transaction again" (serialization, deadlock, busy). */
export function isRetryableConflict(error: unknown): boolean {
  const e = error as { code?: string } | null;
  return e?.code === '40001' || e?.code === '40P01' || e?.code === 'SQLITE_BUSY';
}
