// Rows seeded straight into the database, many per statement (no API, no per-row round trip): a generated
// series to INSERT … SELECT from, on each engine. Shared by tests and benches.
import { sql, type RawBuilder } from 'kysely';
import type { DatabaseKind } from './harness.js';

/** `s(i)` for i in [from, from + count): SQLite's recursive CTE, PostgreSQL's generate_series. */
export function series(kind: DatabaseKind, count: number, from = 0): RawBuilder<unknown> {
  const last = from + count - 1;
  return kind === 'sqlite'
    ? sql`(with recursive n(i) as (select ${sql.lit(from)} union all select i + 1 from n where i < ${sql.lit(last)}) select i from n) as s`
    : sql`generate_series(${sql.lit(from)}::bigint, ${sql.lit(last)}) as s(i)`;
}

/** The SQL expression `expr` as decimal text, zero-padded to `width` characters. */
export const pad = (kind: DatabaseKind, expr: string, width: number): RawBuilder<string> =>
  kind === 'sqlite' ? sql.raw(`printf('%0${width}d', ${expr})`) : sql.raw(`lpad((${expr})::text, ${width}, '0')`);

/** The UTC day (YYYY-MM-DD) of a microsecond column, as `scan_counts` keys it. */
export const utcDay = (kind: DatabaseKind, column: string): RawBuilder<string> =>
  kind === 'sqlite'
    ? sql.raw(`strftime('%Y-%m-%d', ${column} / 1000000, 'unixepoch')`)
    : sql.raw(`to_char(to_timestamp(${column} / 1000000.0) at time zone 'UTC', 'YYYY-MM-DD')`);
