// Verifications as a feature: the verify path's per-process state, and the kind of
// write it hands to the group commit (a batch of scans: scan-commit.ts).
import { BoundedCache } from '../bounded-cache.js';
import { ArrivalOrder } from './arrival-order.js';
import type { VerificationsState } from './context.js';

export { scanWrites } from './scan-commit.js';

// Configured tags never change url nor go away, so a scan's lookup stays valid; a
// bound keeps a walk over many tags from growing the process without end.
const SCAN_LOOKUPS = 100_000;

export function createVerifications(): VerificationsState {
  return { scanLookups: new BoundedCache(SCAN_LOOKUPS), arrival: new ArrivalOrder() };
}
