// Every value sealed under a mode's master (src/secrets), where it is kept, and what depends on
// each generation. A sealed value starts with `v1.<key id>.`, and a generation's key ids per
// purpose are recorded with it, so its dependents are counted without its key. A writer session
// keeps its sealed state inside a JSON object whose first member it is.
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import type { Generation } from './generations.js';
import * as mastersRepo from './repository.js';
import { SEALED_TABLES, sealedLead } from './repository.js';

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
  for (const row of await mastersRepo.chipsPerGeneration(db, mode)) {
    const entry = out.get(row.master_generation);
    if (entry) entry.chips += Number(row.n);
  }
  const unknown = generations.filter((g) => g.keyIds === null);
  for (const { table, columns } of SEALED_TABLES) {
    for (const column of columns) {
      const owners = new Map<string, number>();
      for (const g of generations) if (g.keyIds?.[column.purpose]) owners.set(sealedLead(column, g.keyIds[column.purpose]!), g.generation);
      for (const row of await mastersRepo.sealedPerLead(db, table, column, mode)) {
        const owner = owners.get(row.lead);
        for (const g of owner === undefined ? unknown.map((u) => u.generation) : [owner]) out.get(g)!.sealed += Number(row.n);
      }
    }
  }
  return out;
}

export const dependsOn = (d: Dependents | undefined): boolean => d !== undefined && d.chips + d.sealed > 0;
