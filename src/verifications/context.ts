import type { BoundedCache } from '../bounded-cache.js';
import type { CountryLookup } from '../geoip/countries.js';
import type { Kernel } from '../kernel.js';
import type { MastersState } from '../master-keys/index.js';
import type { SignalsState } from '../signals/index.js';
import type { TagWithChip } from '../tag-chips/index.js';
import type { ArrivalOrder } from './arrival-order.js';

/** What the verify path keeps per process (built by feature.ts). */
export interface VerificationsState {
  /** Configured tags by world and url, for the scan lookup (service.ts). */
  scanLookups: BoundedCache<string, TagWithChip>;
  /** The order in which scans arrived, which their decisions follow (arrival-order.ts). */
  arrival: ArrivalOrder;
}

/** What verifying a scan needs: the kernel, the chips' master keys, the country of an address, the signal thresholds, and its own state. */
export type VerifyContext = Kernel & MastersState & VerificationsState & SignalsState & { countries: CountryLookup };
