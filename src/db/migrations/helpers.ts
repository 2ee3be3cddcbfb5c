import { sql } from 'kysely';
import type { Dialect } from '../database.js';

// Text sorted by the API (url, comment, ...) must order identically on both
// engines: byte order, which SQLite uses by default and PostgreSQL gives with "C".
export const text = (dialect: Dialect) => (dialect === 'postgres' ? sql`text collate "C"` : sql`text`);

// SQLite orders NULL first ascending and last descending; PostgreSQL indexes
// must be declared that way to serve the same ORDER BY without a sort.
export const nullsFirst = (dialect: Dialect, column: string) => (dialect === 'postgres' ? sql.raw(`${column} asc nulls first`) : sql.raw(column));

// The UTC day (YYYY-MM-DD) of a scan's scanned_at (microseconds), as the per-day count tables key it.
export const scannedDay = (dialect: Dialect) =>
  dialect === 'postgres'
    ? sql`to_char(to_timestamp(scanned_at / 1000000) at time zone 'UTC', 'YYYY-MM-DD')`
    : sql`strftime('%Y-%m-%d', scanned_at / 1000000, 'unixepoch')`;
