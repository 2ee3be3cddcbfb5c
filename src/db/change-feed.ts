// How one process hears that another changed something it keeps in memory (a revoked API key, a
// new master key generation), without asking the database on every request:
// - PostgreSQL: the writer sends NOTIFY <channel> '<payload>' in its transaction; each process
//   LISTENs on a dedicated connection. While that connection is down (starting, reconnecting)
//   the feed is not `listening` and the follower must not trust what it kept, since
//   notifications may have been missed. Once listening, the connection takes a name that a writer
//   finds in pg_stat_activity, and it acknowledges every change it delivered (NOTIFY on
//   <channel>_ack), so that a writer can wait until every follower has acted on its change.
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

/** Where a feed's followers acknowledge the changes they delivered (PostgreSQL). */
const ackChannel = (channel: string) => `${channel}_ack`;

/**
 * The name a following connection takes once it listens, computed alike by a follower and a writer: the
 * feed's channel and the connection's schema (one PostgreSQL database may hold several deployments, each in
 * its schema), cut as PostgreSQL cuts an application_name.
 */
const followerName = (channel: string) => sql<string>`left(${followerPrefix(channel)} || coalesce(current_schema(), ''), 63)`;
const followerPrefix = (channel: string) => `tapproof:${channel}:`;

/** A following connection, by its server process id (pg_backend_pid). */
type Follower = { pid: number };

/** A writer waiting for the followers it counted to acknowledge one change. */
interface Delivery {
  pending: Set<number>;
  done(): void;
}

/** One process's subscription to a feed, shared by every attach (however many servers share the Db). */
export class ChangeFeed {
  private attached = 0;
  private stopFeed: (() => Promise<void>) | null = null;
  /** PostgreSQL: LISTEN established; SQLite: the file is watched. */
  listening = false;
  /** SQLite: waiters for the watched file to change, by payload. */
  private readonly echoes = new Map<string, Set<() => void>>();
  /** PostgreSQL: writers waiting for their followers' acknowledgements, by payload. */
  private readonly deliveries = new Map<string, Set<Delivery>>();

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
   * Call inside the changing transaction, after its announcement. `delivered` resolves once every process
   * following this feed has delivered the change to its follower, or after `timeoutMs`, so that the writer
   * answers its client only when no process still holds what the change ended:
   * - PostgreSQL: the followers are the connections named as listening (pg_stat_activity) at this point,
   *   before the commit, so each of them is sent the NOTIFY; each acknowledges once its follower has acted.
   *   One that ends meanwhile makes the writer wait the whole `timeoutMs`.
   * - SQLite: this process's own watcher has seen the file change, when the kernel tells every watcher;
   *   another process acts on it as soon as its event loop gets to it, which is not strictly before a
   *   request that reaches it a moment later.
   * Resolves at once where there is nothing to wait for (an in-memory database, a feed not listening: this
   * process would not hear the acknowledgements).
   */
  async delivery(trx: Executor, payload: string, timeoutMs: number): Promise<{ delivered: Promise<void> }> {
    if (!this.listening) return { delivered: Promise.resolve() };
    if (this.db.dialect !== 'postgres') return { delivered: this.echo(payload, timeoutMs) };
    const followers = sql<Follower>`select pid from pg_stat_activity where datname = current_database() and application_name = ${followerName(this.address.channel)}`;
    const { rows } = await followers.execute(trx);
    if (rows.length === 0) return { delivered: Promise.resolve() };
    const delivered = new Promise<void>((resolve) => {
      const waiting = this.deliveries.get(payload) ?? new Set<Delivery>();
      this.deliveries.set(payload, waiting);
      const delivery: Delivery = {
        pending: new Set(rows.map((row) => Number(row.pid))),
        done: () => {
          clearTimeout(timer);
          waiting.delete(delivery);
          if (waiting.size === 0) this.deliveries.delete(payload);
          resolve();
        },
      };
      const timer = setTimeout(() => delivery.done(), timeoutMs);
      timer.unref();
      waiting.add(delivery);
    });
    return { delivered };
  }

  private acknowledged(ack: string): void {
    const space = ack.indexOf(' ');
    const pid = Number(ack.slice(0, space));
    for (const delivery of [...(this.deliveries.get(ack.slice(space + 1)) ?? [])]) {
      delivery.pending.delete(pid);
      if (delivery.pending.size === 0) delivery.done();
    }
  }

  /** Resolves once the watched file changed (SQLite), or after `timeoutMs`. */
  private echo(payload: string, timeoutMs: number): Promise<void> {
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
      let pid = 0;
      c.on('notification', (message) => {
        const payload = message.payload ?? '';
        if (message.channel === channel) {
          this.follower.changed(payload);
          // Said only once the follower has acted: the writer answers its client after every follower's word.
          void c.query('select pg_notify($1, $2)', [ackChannel(channel), `${pid} ${payload}`]).catch(() => fail(c));
        } else if (message.channel === ackChannel(channel)) this.acknowledged(payload);
      });
      c.on('error', () => fail(c));
      c.on('end', () => fail(c));
      try {
        await c.connect();
        pid = Number((await c.query<Follower>('select pg_backend_pid() as pid')).rows[0]!.pid);
        await c.query(`listen ${channel}`);
        await c.query(`listen ${ackChannel(channel)}`);
        // Named only now that it listens (as followerName spells it): a writer that counts this connection can count on
        // its acknowledgement.
        await c.query(`select set_config('application_name', left($1 || coalesce(current_schema(), ''), 63), false)`, [followerPrefix(channel)]);
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
