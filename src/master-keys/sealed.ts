// Every value sealed under a mode's master (src/secrets), where it is kept, and what depends on
// each generation. A sealed value starts with `v1.<key id>.`, and a generation's key ids per
// purpose are recorded with it, so its dependents are counted without its key. A writer session
// keeps its sealed state inside a JSON object whose first member it is.
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import type { Generation } from './generations.js';

export interface SealedColumn {
  column: string;
  purpose: string;
  /** The text before `v1.` in the stored value. */
  prefix: string;
}

export interface SealedTable {
  table: 'chips' | 'webhooks' | 'writer_sessions';
  /** The primary key, the order a rewrap walks the table in. */
  id: string;
  columns: SealedColumn[];
}

const plain = (column: string, purpose: string): SealedColumn => ({ column, purpose, prefix: '' });

export const SEALED_TABLES: SealedTable[] = [
  {
    table: 'chips',
    id: 'tag_id',
    columns: [plain('sdm_file_read_key_sealed', 'chip-keys'), plain('sdm_meta_read_key_sealed', 'chip-keys'), plain('app_master_key_sealed', 'chip-keys')],
  },
  { table: 'webhooks', id: 'id', columns: [plain('secret_sealed', 'webhook-secret'), plain('previous_secret_sealed', 'webhook-secret')] },
  { table: 'writer_sessions', id: 'id', columns: [{ column: 'state', purpose: 'writer-session', prefix: '{"sealed":"' }] },
];

/** How a value sealed under key id `kid` starts in `column`. */
export const sealedLead = (column: SealedColumn, kid: string): string => `${column.prefix}v1.${kid}.`;

/** The length of a sealed value's lead (key ids are 8 characters). */
const leadLength = (column: SealedColumn): number => column.prefix.length + 12;

/** `column` holds a sealed value (SQL). */
export const isSealed = (column: SealedColumn): RawBuilder<boolean> =>
  sql<boolean>`substr(${sql.ref(column.column)}, 1, ${sql.lit(column.prefix.length + 3)}) = ${column.prefix + 'v1.'}`;

/** `column` holds a value sealed under another key id than `kid` (SQL). */
export const sealedUnderOther = (column: SealedColumn, kid: string): RawBuilder<boolean> =>
  sql<boolean>`(${isSealed(column)} and substr(${sql.ref(column.column)}, 1, ${sql.lit(leadLength(column))}) <> ${sealedLead(column, kid)})`;

/** What depends on one generation: chips whose keys come from it, values sealed under it. */
export interface Dependents {
  chips: number;
  sealed: number;
}

/**
 * What depends on each of `generations` (of `mode`). A generation whose key ids are not recorded
 * yet (carried over from the check values, and no process holding its key started since) is
 * counted every sealed value no other generation accounts for.
 */
export async function dependents(db: Executor, mode: Mode, generations: Generation[]): Promise<Map<number, Dependents>> {
  const out = new Map(generations.map((g) => [g.generation, { chips: 0, sealed: 0 }]));
  const chips = await db
    .selectFrom('chips')
    .select(['master_generation', (eb) => eb.fn.countAll<number>().as('n')])
    .where('mode', '=', mode)
    .groupBy('master_generation')
    .execute();
  for (const row of chips) {
    const entry = out.get(row.master_generation);
    if (entry) entry.chips += Number(row.n);
  }
  const unknown = generations.filter((g) => g.keyIds === null);
  for (const { table, columns } of SEALED_TABLES) {
    for (const column of columns) {
      const owners = new Map<string, number>();
      for (const g of generations) if (g.keyIds?.[column.purpose]) owners.set(sealedLead(column, g.keyIds[column.purpose]!), g.generation);
      const { rows } = await sql<{ lead: string; n: number | string }>`select substr(${sql.ref(column.column)}, 1, ${sql.lit(leadLength(column))}) as lead,
          count(*) as n from ${sql.table(table)} where mode = ${mode} and ${isSealed(column)} group by 1`.execute(db);
      for (const row of rows) {
        const owner = owners.get(row.lead);
        for (const g of owner === undefined ? unknown.map((u) => u.generation) : [owner]) out.get(g)!.sealed += Number(row.n);
      }
    }
  }
  return out;
}

export const dependsOn = (d: Dependents | undefined): boolean => d !== undefined && d.chips + d.sealed > 0;
