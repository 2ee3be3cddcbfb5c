import type { Kernel } from '../kernel.js';
import type { PrincipalCache } from './cache.js';
import type { KeyUses } from './last-use.js';

/** What the keys feature keeps per process (built by feature.ts). */
export interface KeysState {
  /** Bearer keys already resolved (cache.ts). */
  principals: PrincipalCache;
  /** When each key was last used, written once a minute at most (last-use.ts). */
  keyUses: KeyUses;
}

export type KeysContext = Pick<Kernel, 'db' | 'clock'> & KeysState;
