// In-process cache of live console sessions by their token's hash, so that a console request does not read
// the database for its session (it did, and a session cost 14-28 % over a key on the console's pages). Only
// live sessions are kept, and every change that ends a session or changes what it may do (sign-out, a mode
// switch, a new role, a disabled account, a reset: each ends or rewrites the user's sessions) is announced
// on the sessions feed (src/db/change-feed.ts) in its transaction: every process drops the user's entries,
// and the change answers only once the listening processes have (as a key's revoke does, docs/keys.md).
// While the feed is not listening nothing is kept. An entry's idle expiry is judged on the last use this
// process saw: one that looks idle here is read again, since another process may have seen a later use.
import { ChangeFeed, feedFile, type FeedAddress } from '../db/change-feed.js';
import type { Db, Executor } from '../db/database.js';
import type { SessionRecord } from './repository.js';

const MAX_ENTRIES = 10_000;
/** Bounds what a lost announcement could leave behind, whatever happens. */
const TTL_MS = 60_000;

interface Entry {
  record: SessionRecord;
  expiresAt: number;
}

export const SESSIONS_CHANNEL = 'tapproof_sessions';

/** Where changes to console sessions are announced: payload the user id (PostgreSQL), a file beside the database (SQLite). */
export const sessionsFeed = (db: Db): FeedAddress => ({ channel: SESSIONS_CHANNEL, file: feedFile(db, 'sessions') });

export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped on every eviction: a lookup that started before one must not be cached. */
  private epoch = 0;
  private readonly feed: ChangeFeed;

  constructor(
    db: Db,
    /** Milliseconds: the service clock's, so that a test moving it ages entries too. */
    private readonly clock: () => number,
  ) {
    this.feed = new ChangeFeed(db, sessionsFeed(db), {
      changed: (userId) => (userId === null ? this.clear() : this.evictUser(userId)),
      reset: () => this.clear(),
    });
  }

  private get usable(): boolean {
    return this.feed.listening || this.feed.alone;
  }

  stamp(): number {
    return this.epoch;
  }

  get(tokenHash: string): SessionRecord | undefined {
    if (!this.usable) return undefined;
    const entry = this.entries.get(tokenHash);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.clock()) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return entry.record;
  }

  set(tokenHash: string, record: SessionRecord, epoch: number): void {
    if (!this.usable || epoch !== this.epoch) return;
    this.entries.delete(tokenHash);
    this.entries.set(tokenHash, { record, expiresAt: this.clock() + TTL_MS });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }

  /** The session is not live (or its lookup failed): forget it, unless an eviction came in between. */
  drop(tokenHash: string, epoch: number): void {
    if (epoch === this.epoch) this.entries.delete(tokenHash);
  }

  evictUser(userId: string): void {
    this.epoch++;
    for (const [hash, entry] of this.entries) if (entry.record.user_id === userId) this.entries.delete(hash);
  }

  private clear(): void {
    this.epoch++;
    this.entries.clear();
  }

  /** Inside a change's transaction, after its announcement: resolves once every listening process has dropped the user's sessions. */
  delivery(trx: Executor, userId: string, timeoutMs: number): Promise<{ delivered: Promise<void> }> {
    return this.feed.delivery(trx, userId, timeoutMs);
  }

  /** Starts hearing of changes from other processes (PostgreSQL: `url`); returns the matching stop. */
  attach(url: string | null): () => Promise<void> {
    return this.feed.attach(url);
  }
}
