import type { Mode, Role } from './db/schema.js';

/** A team's sandbox or production: every resource belongs to exactly one world, and a key sees only its own. */
export interface World {
  teamId: string;
  mode: Mode;
}

/** Who is calling: a key of a team, in its world (mode), with its role. */
export interface Principal {
  keyId: string;
  teamId: string;
  mode: Mode;
  role: Role;
  /** Microseconds; null when the key does not expire. */
  expiresAt: number | null;
}
