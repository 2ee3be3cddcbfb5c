// In-process cache of authenticated principals, keyed by the key's hash, so
// that most requests skip the API-key lookup. Only valid keys are cached (a new
// key must work at once), and a revoked key must stop working as soon as its
// revoke has committed:
// - PostgreSQL: `revoke` sends NOTIFY tapproof_keys '<hash>' in its transaction;
//   each process LISTENs on a dedicated connection and evicts the entry. While
//   that connection is down (starting, reconnecting) the cache is bypassed and
//   emptied, since notifications may have been missed.
// - SQLite: `revoke` rewrites a file beside the database after its commit; each
//   process watches that file (inotify) and empties the cache when it changes.
//   While the watch is not established the cache is bypassed. (A per-request
//   `PRAGMA data_version` did the same job but cost as much as the lookup itself.)
// Revokes through the same Db object evict directly. A TTL bounds staleness
// whatever happens. An entry past its refresh age is still served while one
// request looks the key up again in the background, so that under steady
// traffic no request waits on the database for its key (such a wait holds later
// scans back behind it in arrival order, docs/throughput.md).
import { ChangeFeed } from '../db/change-feed.js';
import type { Db, Executor } from '../db/database.js';
import type { Principal } from '../world.js';
import * as keysRepo from './repository.js';

const MAX_ENTRIES = 10_000;
const TTL_MS = 60_000;
/** Age after which a hit also refreshes the entry from the database. */
const REFRESH_MS = 45_000;

interface Entry {
  principal: Principal;
  refreshAt: number;
  expiresAt: number;
  refreshing: boolean;
}

/** A cache hit; `refresh` is true for exactly one hit once the entry is due for a background lookup. */
export interface CacheHit {
  principal: Principal;
  refresh: boolean;
}

export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped on every eviction: a lookup that started before one must not be cached. */
  private epoch = 0;
  /** Revokes by other processes (src/db/change-feed.ts): NOTIFY on PostgreSQL, the revocations file on SQLite. */
  private readonly feed: ChangeFeed;

  /** Milliseconds; tests move it forward to expire or age entries instead of sleeping. */
  clock: () => number = Date.now;
  ttlMs = TTL_MS;
  refreshMs = REFRESH_MS;

  constructor(db: Db) {
    this.feed = new ChangeFeed(db, keysRepo.keysFeed(db), { changed: (hash) => (hash === null ? this.clear() : this.evict(hash)), reset: () => this.clear() });
  }

  /** Whether entries may be used at all right now. */
  private get usable(): boolean {
    // An in-memory SQLite database has no other process that could revoke.
    return this.feed.listening || this.feed.alone;
  }

  /** Taken before a lookup and handed to `set`, so that a revoke seen in between is not undone. */
  stamp(): number {
    return this.epoch;
  }

  get(keyHash: string): CacheHit | undefined {
    if (!this.usable) return undefined;
    const entry = this.entries.get(keyHash);
    if (entry === undefined) return undefined;
    const now = this.clock();
    if (entry.expiresAt <= now) {
      this.entries.delete(keyHash);
      return undefined;
    }
    // Eviction takes the entry set longest ago. A key in use is set again by its refresh every
    // REFRESH_MS, so that order follows use without moving the entry on each hit (a delete and set per
    // request leaves old-generation garbage, docs/throughput.md#memory).
    const refresh = !entry.refreshing && entry.refreshAt <= now;
    if (refresh) entry.refreshing = true;
    return { principal: entry.principal, refresh };
  }

  set(keyHash: string, principal: Principal, epoch: number): void {
    if (!this.usable || epoch !== this.epoch) return;
    const now = this.clock();
    this.entries.delete(keyHash);
    this.entries.set(keyHash, { principal, refreshAt: now + this.refreshMs, expiresAt: now + this.ttlMs, refreshing: false });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }

  /** A background refresh found the key gone or revoked, or failed: drop it (the next request looks it up). */
  drop(keyHash: string, epoch: number): void {
    if (epoch === this.epoch) this.entries.delete(keyHash);
  }

  evict(keyHash: string): void {
    this.epoch++;
    this.entries.delete(keyHash);
  }

  private clear(): void {
    this.epoch++;
    this.entries.clear();
  }

  /**
   * Inside a revoke's transaction, after its announcement: `delivered` resolves once every process has
   * dropped `keyHash` from its cache, at most `timeoutMs` after the commit (src/db/change-feed.ts, delivery).
   */
  delivery(trx: Executor, keyHash: string, timeoutMs: number): Promise<{ delivered: Promise<void> }> {
    return this.feed.delivery(trx, keyHash, timeoutMs);
  }

  /**
   * Starts hearing about revokes from other processes (once per cache, however
   * many servers share the Db): LISTEN on PostgreSQL (`url`), a file watch on
   * SQLite. Returns the matching stop.
   */
  attach(url: string | null): () => Promise<void> {
    return this.feed.attach(url);
  }
}
