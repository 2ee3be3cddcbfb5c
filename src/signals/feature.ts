// Counterfeit signals as a feature: the per-process cache of each world's thresholds, which the
// verify path reads for every scan and PATCH /teams/current refreshes.
import type { Kernel } from '../kernel.js';
import { ThresholdsCache } from './thresholds.js';

export interface SignalsState {
  signalThresholds: ThresholdsCache;
}

export function createSignals(kernel: Kernel): SignalsState {
  return { signalThresholds: new ThresholdsCache(kernel.db) };
}
