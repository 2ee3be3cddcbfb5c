// The public extension API as a feature: its per-process state, and the kinds of
// writes it hands to the group commit (challenges, proofs: writes.ts).
import type { Kernel } from '../kernel.js';
import type { ExtensionState } from './context.js';
import { createOwnershipChecks } from './ownership-checks.js';

export { extensionWrites } from './writes.js';

export function createExtension({ db, config }: Pick<Kernel, 'db' | 'config'>): ExtensionState {
  return { ownership: createOwnershipChecks(db, config), challengePrune: { at: 0 } };
}
