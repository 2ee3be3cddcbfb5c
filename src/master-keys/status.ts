// `tapproof master status`: each generation of a mode with its check value, whether it is current,
// and what still depends on it (chips whose keys come from it, values sealed under it). A rotation
// is over when every older generation shows none: then it can be retired.
import type { Executor } from '../db/database.js';
import type { Mode } from '../db/schema.js';
import { currentOf, listGenerations } from './generations.js';
import { dependents } from './sealed.js';

export interface GenerationStatus {
  mode: Mode;
  generation: number;
  current: boolean;
  retired: boolean;
  check_value: string;
  chips: number;
  sealed: number;
}

export async function generationStatus(db: Executor, modes: Mode[]): Promise<GenerationStatus[]> {
  const out: GenerationStatus[] = [];
  for (const mode of modes) {
    const generations = await listGenerations(db, mode);
    const counts = await dependents(db, mode, generations);
    const current = currentOf(generations);
    for (const g of generations) {
      const d = counts.get(g.generation)!;
      out.push({ mode, generation: g.generation, current: g === current, retired: g.retired, check_value: g.checkValue, chips: d.chips, sealed: d.sealed });
    }
  }
  return out;
}
