// Group fsync of a SQLite WAL file, for a connection opened with walFlush: 'caller'
// (synchronous=NORMAL: a commit writes its WAL frames but does not wait for the disk).
// An fsync of the WAL makes every frame written before it durable, whichever
// connection wrote it, so the committer can decide its next batch while the disk
// flushes the last one, and one fsync covers every commit that ended before it
// began. A commit counts as durable only once such an fsync has completed: the
// same guarantee as synchronous=FULL for anyone who waits for `after`.
import { close, fdatasync, open } from 'node:fs';

export class WalFlush {
  private fd: number | null = null;
  private flushing = false;
  /** Waiting for an fsync that begins after they were queued. */
  private queued: ((error: Error | null) => void)[] = [];
  private idle: (() => void)[] = [];

  /** `walPath`: the database file's `-wal`; it exists once the connection has committed. */
  constructor(private readonly walPath: string) {}

  /** Calls `done` once an fsync of the WAL that began after this call has completed (or failed). */
  after(done: (error: Error | null) => void): void {
    this.queued.push(done);
    if (!this.flushing) this.start();
  }

  private start(): void {
    this.flushing = true;
    const covered = this.queued;
    this.queued = [];
    const finish = (error: Error | null) => {
      for (const done of covered) done(error);
      if (this.queued.length > 0) return this.start();
      this.flushing = false;
      for (const wake of this.idle.splice(0)) wake();
    };
    // SQLite deletes the WAL only when its last connection closes, and ours is
    // open while this runs, so the descriptor always names the live WAL.
    if (this.fd !== null) return fdatasync(this.fd, finish);
    open(this.walPath, 'r', (error, fd) => {
      if (error) return finish(error);
      this.fd = fd;
      fdatasync(fd, finish);
    });
  }

  /** Waits for the flushes under way, then closes the file (before the connection closes). */
  async close(): Promise<void> {
    if (this.flushing) await new Promise<void>((resolve) => this.idle.push(resolve));
    const fd = this.fd;
    this.fd = null;
    if (fd !== null) await new Promise<void>((resolve) => close(fd, () => resolve()));
  }
}
