// How one process hears that another changed something it keeps in memory (a revoked API key, a
// new master key generation), without asking the database on every request:
// - PostgreSQL: the writer sends NOTIFY <channel> '<payload>' in its transaction; each process
//   LISTENs on a dedicated connection. While that connection is down (starting, reconnecting)
//   the feed is not `listening` and the follower must not trust what it kept, since
//   notifications may have been missed.
// - SQLite: the writer rewrites a file beside the database after its commit; each process watches
//   that file (inotify). While the watch is not established the feed is not `listening`.
import { watch, writeFileSync, type FSWatcher } from 'node:fs';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db, Executor } from './database.js';

const RECONNECT_MS = 1_000;

export interface ChangeFollower {
  /** Another process changed something: `payload` is the NOTIFY payload (PostgreSQL), null from the file (SQLite). */
  changed(payload: string | null): void;
  /** The feed just came up or went down: anything kept while it was down may be stale. */
  reset(): void;
}

/** Where a feed is heard: a PostgreSQL channel, or a file beside a SQLite database (undefined: in memory, no other process). */
export interface FeedAddress {
  channel: string;
  file: string | undefined;
}

/** The file beside a SQLite file database that announces changes of `name`. */
export const feedFile = (db: Db, name: string): string | undefined => (db.file === undefined ? undefined : `${db.file}-${name}`);

/** Announces a change to every process following `address`, PostgreSQL half: NOTIFY inside the changing transaction (delivered at its commit). */
export async function notifyInTransaction(db: Db, trx: Executor, address: FeedAddress, payload: string): Promise<void> {
  if (db.dialect === 'postgres') await sql`select pg_notify(${address.channel}, ${payload})`.execute(trx);
}

/** The SQLite half: rewrites the watched file once the change has committed. */
export function touchAfterCommit(db: Db, address: FeedAddress, stamp: number): void {
  if (db.dialect === 'sqlite' && address.file !== undefined) writeFileSync(address.file, `${stamp}\n`);
}

/** One process's subscription to a feed, shared by every attach (however many servers share the Db). */
export class ChangeFeed {
  private attached = 0;
  private stopFeed: (() => Promise<void>) | null = null;
  /** PostgreSQL: LISTEN established; SQLite: the file is watched. */
  listening = false;
  /** Waiters for a payload to come back through this process's own LISTEN (PostgreSQL), by payload. */
  private readonly echoes = new Map<string, Set<() => void>>();

  constructor(
    private readonly db: Db,
    private readonly address: FeedAddress,
    private readonly follower: ChangeFollower,
  ) {}

  /** Whether nothing can change behind this process's back: an in-memory SQLite database has no other process. */
  get alone(): boolean {
    return this.db.dialect === 'sqlite' && this.address.file === undefined;
  }

  /** Starts following (PostgreSQL: `url`); returns the matching stop. */
  attach(url: string | null): () => Promise<void> {
    if (this.db.dialect === 'postgres' ? url === null : this.address.file === undefined) return async () => {};
    if (this.attached++ === 0) this.stopFeed = this.db.dialect === 'postgres' ? this.listen(url!) : this.watch(this.address.file!);
    let detached = false;
    return async () => {
      if (detached) return;
      detached = true;
      if (--this.attached === 0) {
        const stop = this.stopFeed;
        this.stopFeed = null;
        await stop?.();
      }
    };
  }

  /**
   * Resolves once `payload` has come back through this process's own feed, or after `timeoutMs`: a
   * change's writer waits so that its answer leaves only after the announcement has reached every
   * following process (PostgreSQL sends a NOTIFY to every listener at the commit; on SQLite the kernel
   * tells every watcher of the file when it is rewritten). Call it before the commit (inside the
   * transaction), so that an early echo is not missed; it resolves at once where there is nothing to wait
   * for (an in-memory database, a feed not listening).
   */
  echo(payload: string, timeoutMs: number): Promise<void> {
    if (!this.listening) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.echoes.get(payload) ?? new Set<() => void>();
      this.echoes.set(payload, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0) this.echoes.delete(payload);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      waiters.add(done);
    });
  }

  private answerEcho(payload: string): void {
    for (const done of [...(this.echoes.get(payload) ?? [])]) done();
  }

  private down(): void {
    this.listening = false;
    this.follower.reset();
  }

  private watch(file: string): () => Promise<void> {
    let watcher: FSWatcher | null = null;
    try {
      // The file must exist to be watched; 'a' creates it without touching a present one.
      writeFileSync(file, '', { flag: 'a' });
      watcher = watch(file, { persistent: false }, () => {
        this.follower.changed(null);
        // The file carries no payload: any change answers every waiter.
        for (const payload of [...this.echoes.keys()]) this.answerEcho(payload);
      });
      watcher.on('error', () => this.down());
      this.listening = true;
    } catch {
      // No watch: the follower trusts nothing it kept.
      this.listening = false;
    }
    return async () => {
      this.down();
      watcher?.close();
    };
  }

  private listen(url: string): () => Promise<void> {
    const { channel } = this.address;
    let stopped = false;
    let client: pg.Client | null = null;
    let timer: NodeJS.Timeout | null = null;
    const fail = (c: pg.Client) => {
      if (client !== c) return;
      this.down();
      client = null;
      void c.end().catch(() => {});
      if (!stopped) timer = setTimeout(() => void connect(), RECONNECT_MS);
    };
    const connect = async () => {
      timer = null;
      if (stopped) return;
      // Keep-alive: a silently dropped connection is noticed (and the follower told) instead of trusted.
      const c = new pg.Client({ connectionString: url, keepAlive: true });
      client = c;
      c.on('notification', (message) => {
        if (message.channel !== channel) return;
        this.follower.changed(message.payload ?? null);
        this.answerEcho(message.payload ?? '');
      });
      c.on('error', () => fail(c));
      c.on('end', () => fail(c));
      try {
        await c.connect();
        await c.query(`listen ${channel}`);
        if (client !== c || stopped) return;
        // Anything kept before (or while down) may have missed a change.
        this.follower.reset();
        this.listening = true;
      } catch {
        fail(c);
      }
    };
    void connect();
    return async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      this.down();
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    };
  }
}
