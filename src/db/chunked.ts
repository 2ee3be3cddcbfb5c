// Multi-row statements bind one parameter per value, and both engines cap the count per
// statement (SQLite's default SQLITE_MAX_VARIABLE_NUMBER is 32,766, PostgreSQL's wire
// protocol 65,535). Every multi-row write goes through here, sized by the row's width.
const MAX_PARAMETERS = 30_000;

/** Runs `write` on consecutive slices of `rows`, each small enough for one statement. */
export async function inChunks<R extends object>(rows: R[], write: (part: R[]) => Promise<unknown>): Promise<void> {
  if (rows.length === 0) return;
  const size = Math.max(1, Math.floor(MAX_PARAMETERS / Object.keys(rows[0]!).length));
  for (let i = 0; i < rows.length; i += size) await write(rows.slice(i, i + size));
}
