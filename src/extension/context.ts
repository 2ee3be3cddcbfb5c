import type { Kernel } from '../kernel.js';
import type { ChipImportState } from '../tag-chips/index.js';
import type { OwnershipChecks } from './ownership-checks.js';

/** What the extension keeps per process (built by feature.ts). */
export interface ExtensionState extends ChipImportState {
  /** Signature and holdings checks of ownership proofs (ownership-checks.ts). */
  ownership: OwnershipChecks;
  /** When an issued challenge last pruned the expired ones (challenges.ts). */
  challengePrune: { at: number };
}

export type ExtensionContext = Kernel & ExtensionState;
