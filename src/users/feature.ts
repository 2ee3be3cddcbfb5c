// Console users as a feature: what it keeps per process.
import type { Kernel } from '../kernel.js';
import type { UsersState } from './context.js';
import { SessionCache } from './session-cache.js';

export function createUsers({ db, clock }: Pick<Kernel, 'db' | 'clock'>): UsersState {
  return { consoleSessions: new SessionCache(db, () => clock.nowMicros() / 1000) };
}
