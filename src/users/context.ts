import type { Kernel } from '../kernel.js';

/** What the users feature needs: the database, the clock and the console's settings (config.console). */
export type UsersContext = Pick<Kernel, 'db' | 'clock' | 'config'>;
