// The public extension API as a feature: its per-process state, and the kinds of
// writes it hands to the group commit (challenges, proofs: writes.ts).
import type { Kernel } from '../kernel.js';
import type { ImportedFields } from '../tag-chips/index.js';
import type { ExtensionState } from './context.js';
import { catalogImportFields } from './catalog/import-fields.js';
import { createOwnershipChecks } from './ownership-checks.js';

export { extensionWrites } from './writes.js';

export function createExtension({ db, config }: Pick<Kernel, 'db' | 'config'>): ExtensionState {
  // The chip import's product and token fields are the catalog's (docs/decisions.md §7).
  return { ownership: createOwnershipChecks(db, config), challengePrune: { at: 0 }, chipImportFields: catalogImportFields as ImportedFields };
}
