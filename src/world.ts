import type { Mode, Role } from './db/schema.js';

/** A team's sandbox or production: every resource belongs to exactly one world, and a key sees only its own. */
export interface World {
  teamId: string;
  mode: Mode;
}

/** Who is calling: a key of a team or a person signed in to the console, in a world (mode), with a role. */
export interface Principal {
  /** A bearer key, or a console session's user (src/users/sessions.ts). */
  via: 'key' | 'user';
  /** The key's or the user's id. */
  id: string;
  teamId: string;
  mode: Mode;
  role: Role;
  /** Microseconds; null when the key does not expire (and for a user: the session bounds it). */
  expiresAt: number | null;
}

/** Who made a change, as the audit log records it (docs/audit.md). */
export interface Actor {
  /** A key over the API, a person signed in to the console, the CLI on the host, or the platform's own jobs. */
  type: 'key' | 'user' | 'cli' | 'system';
  /** The key's or user's id; the CLI's `user@host`; the job's name. */
  id: string;
  /** The client's address (API); null elsewhere. */
  address: string | null;
  /** The request's id (X-Request-Id), which ties the events of one request together; null outside HTTP. */
  requestId: string | null;
}

/** A world acted on by someone: what a service that changes the world needs to record who did it. */
export interface Caller extends World {
  actor: Actor;
}
