// When each key was last used, for GET /keys (docs/read-api.md, Keys and team). The verify
// path must not pay for it: a key's use is written at most once a minute per process, the
// uses due are written together at most once a second, in one transaction after the requests
// that made them, and no request waits for that write. (A write per use would cost SQLite an
// fsync on the event loop each time; the group commit is the scans' and proofs'.)
import type { Db } from '../db/database.js';
import { inTransaction } from '../db/transaction.js';
import type { Clock } from '../time.js';
import * as keysRepo from './repository.js';

/** A key's use is written again once this much later than the last write (microseconds). */
const WRITE_EVERY_MICROS = 60_000_000;
/** How long uses gather before they are written together. */
const FLUSH_DELAY_MS = 1_000;
const MAX_KEYS = 10_000;

export class KeyUses {
  /** When this process last wrote each key's use, by key id, least recently written first. */
  private readonly written = new Map<string, number>();
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    db.atClose(async () => {
      if (this.timer) clearTimeout(this.timer);
      await this.flush();
    });
  }

  /** The key authenticated a request now: one Map lookup, and a write queued once a minute. */
  note(keyId: string): void {
    const at = this.clock.nowMicros();
    const last = this.written.get(keyId);
    if (last !== undefined && at - last < WRITE_EVERY_MICROS) return;
    this.written.delete(keyId);
    this.written.set(keyId, at);
    if (this.written.size > MAX_KEYS) this.written.delete(this.written.keys().next().value!);
    this.pending.set(keyId, at);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS).unref();
  }

  /** Writes the uses gathered so far; a failed write only costs precision (the next use is written). */
  async flush(): Promise<void> {
    this.timer = null;
    // In key order, so that two processes writing the same keys lock them in one order.
    const uses = [...this.pending].map(([keyId, at]) => ({ keyId, at })).sort((a, b) => (a.keyId < b.keyId ? -1 : 1));
    this.pending = new Map();
    if (uses.length === 0) return;
    try {
      await inTransaction(this.db, (trx) => keysRepo.setKeysLastUsed(trx, uses));
    } catch {
      for (const { keyId, at } of uses) if (this.written.get(keyId) === at) this.written.delete(keyId);
    }
  }
}
