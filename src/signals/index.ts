// Counterfeit signals' front door: the signal names, the pure decisions, the thresholds and per-day counts a scan uses.
// Other features import this feature only through this file (test/house/layers.unit.test.ts).
export {
  FLAGGED,
  addFlaggedCounts,
  addSignalCounts,
  findFlaggedCounts,
  findSignalCounts,
  foldFlaggedCounts,
  foldSignalCounts,
  type FlaggedCountRow,
  type SignalCountRow,
} from './counts.js';
export { BURST_WINDOW_MICROS, advanceGenuine, genuineSignals, isBurst } from './detect.js';
export { type SignalsState } from './feature.js';
export { SIGNALS, signalPattern, signalsOf, storedSignals, type Signal } from './names.js';
export { THRESHOLDS_RULE, ThresholdsSchema, changeThresholds, findThresholds, type Thresholds } from './thresholds.js';
