// The filter that keeps a statement inside one world (src/world.ts): every resource belongs to one
// team and mode, and a caller sees only its own. Applied with Kysely's `$call`, it adds the same two
// `where`s the statements wrote out by hand, so their SQL text (sql/) is unchanged.
import type { World } from '../world.js';

/** A select, update or delete builder. Kysely's generic `where` does not let this type tell whether its tables have the two columns: the SQL snapshot and the tests of each statement do. */
interface Filterable<Q> {
  where(column: string, op: '=', value: string): Q;
}

type InWorld = <Q extends Filterable<Q>>(query: Q) => Q;

/**
 * `query.$call(inWorld(world))`: only the rows of `world`. Name the table (or its alias) when the
 * statement joins others: `inWorld(world, 'tags')` filters on `tags.team_id` and `tags.mode`.
 */
export function inWorld(world: World, table?: string): InWorld {
  const team = table === undefined ? 'team_id' : `${table}.team_id`;
  const mode = table === undefined ? 'mode' : `${table}.mode`;
  return (query) => query.where(team, '=', world.teamId).where(mode, '=', world.mode);
}
