// Backups of the embedded SQLite database, and their restore. SQLite's online backup API (through
// better-sqlite3) copies a consistent snapshot page by page on a connection of its own, so servers keep
// answering meanwhile (in WAL mode readers never block the writer). A copy counts only once
// `integrity_check` says ok. Key material that is not in the database travels beside it: a production
// master key file generated beside the database (one key per generation) is copied next to the backup
// with mode 0600; keys from the environment are named, never copied. PostgreSQL has its own tools
// (pg_dump, pg_basebackup with WAL archiving, docs/operations.md#backup-and-restore).
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';

/** The file a backup's key material is kept in, beside the backup. */
export const keysBeside = (backup: string): string => `${backup}.master-keys`;

export class BackupError extends Error {}

/** `ok`, or what SQLite's integrity_check found (its first lines). */
export function integrityOf(path: string): string {
  const db = new SQLite(path, { readonly: true, fileMustExist: true });
  try {
    const rows = db.pragma('integrity_check') as { integrity_check: string }[];
    return rows
      .map((r) => r.integrity_check)
      .slice(0, 5)
      .join('; ');
  } finally {
    db.close();
  }
}

export interface BackupReport {
  path: string;
  bytes: number;
  /** The production master key file copied beside the backup, if there was one to copy. */
  keyFile: string | null;
}

/**
 * Copies the database at `from` to `to` (which must not exist) while other processes keep using it,
 * checks the copy, and copies the generated production master key file beside it when there is one.
 */
export async function backupSqlite(from: string, to: string, productionKeyFile: string): Promise<BackupReport> {
  if (existsSync(to)) throw new BackupError(`${to} exists: name a new file`);
  mkdirSync(dirname(to), { recursive: true });
  const partial = `${to}.partial`;
  rmSync(partial, { force: true });
  const source = new SQLite(from, { readonly: true, fileMustExist: true });
  try {
    await source.backup(partial);
  } finally {
    source.close();
  }
  // The copy keeps the source's WAL mode, and opening it again would leave `-wal` and `-shm` files beside
  // it: a backup is one file, in rollback-journal mode (a server opening it restored turns WAL back on).
  const copy = new SQLite(partial, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
  const integrity = integrityOf(partial);
  if (integrity !== 'ok') {
    rmSync(partial, { force: true });
    throw new BackupError(`the copy failed its integrity check (${integrity}); nothing was kept`);
  }
  renameSync(partial, to);
  let keyFile: string | null = null;
  if (existsSync(productionKeyFile)) {
    keyFile = keysBeside(to);
    copyFileSync(productionKeyFile, keyFile);
    chmodSync(keyFile, 0o600);
  }
  return { path: to, bytes: statSync(to).size, keyFile };
}

/**
 * Puts the backup `from` in place as the database `to`, in a data directory that must be empty (or
 * `force`), with its production master key file if one travelled beside it.
 */
export function restoreSqlite(from: string, to: string, productionKeyFile: string, force: boolean): { keyFile: string | null } {
  if (!existsSync(from)) throw new BackupError(`no backup at ${from}`);
  const integrity = integrityOf(from);
  if (integrity !== 'ok') throw new BackupError(`${from} fails its integrity check (${integrity}); nothing was restored`);
  const dir = dirname(to);
  mkdirSync(dir, { recursive: true });
  const present = readdirSync(dir);
  if (present.length > 0 && !force)
    throw new BackupError(`${dir} is not empty (${present.slice(0, 3).join(', ')}…): restore into an empty data directory, or pass --force`);
  // What belonged to the database being replaced: its WAL would be replayed onto the restored file.
  for (const suffix of ['-wal', '-shm', '-journal']) rmSync(to + suffix, { force: true });
  const partial = `${to}.partial`;
  copyFileSync(from, partial);
  renameSync(partial, to);
  const keys = keysBeside(from);
  if (!existsSync(keys)) return { keyFile: null };
  copyFileSync(keys, productionKeyFile);
  chmodSync(productionKeyFile, 0o600);
  return { keyFile: productionKeyFile };
}
