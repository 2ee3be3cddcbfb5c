import type { Kernel } from '../kernel.js';
import type { SessionCache } from './session-cache.js';

/** What the users feature keeps per process (built by feature.ts). */
export interface UsersState {
  /** Live console sessions already read (session-cache.ts). */
  consoleSessions: SessionCache;
}

/** What the users feature needs: the database, the clock, the console's settings (config.console) and its cache. */
export type UsersContext = Pick<Kernel, 'db' | 'clock' | 'config'> & UsersState;
