// What each role of API key may call. Every route of the platform API declares its access in its
// options (`config: { access: 'write' }`); installAuth refuses to register one that does not, so a
// new route cannot be reachable by every key by accident.
//   admin   everything, keys included
//   write   everything but keys
//   read    GET only
//   verify  what a landing page's backend needs: verify a scan, read a verification and a session
import type { Role } from '../db/schema.js';
import type { ErrorCode } from '../errors.js';
import type { Principal } from '../world.js';

export type { Role };

export const ROLES: readonly Role[] = ['admin', 'write', 'read', 'verify'];

/** A route's access: the least role of admin > write > read, and whether verify keys may call it too. */
export type Access = 'admin' | 'write' | 'read' | 'write+verify' | 'read+verify' | 'any';

const ALLOWED: Record<Access, readonly Role[]> = {
  admin: ['admin'],
  write: ['admin', 'write'],
  read: ['admin', 'write', 'read'],
  'write+verify': ['admin', 'write', 'verify'],
  'read+verify': ['admin', 'write', 'read', 'verify'],
  any: ROLES,
};

/**
 * How far past one world a route acts (docs/keys.md#what-each-mode-may-touch). `world`: the caller's team
 * and mode only, the default. `team`: what belongs to the whole team, both its worlds (its people): a
 * sandbox key is the one handed to developers and test servers, so it never reaches past its sandbox;
 * a production key or a person signed in to the console does. `person`: hands over another person's
 * account (a reset link), so only a person signed in to the console may; no key, of any mode. `self`: the
 * signed-in person's own settings, which a key, being nobody, does not have.
 */
export type Reach = 'world' | 'team' | 'person' | 'self';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    reach?: Reach;
  }
}

export const allowedRoles = (access: Access): readonly Role[] => ALLOWED[access];

export const allows = (role: Role, access: Access): boolean => ALLOWED[access].includes(role);

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/** The JSON:API `detail` of a 403: the role the caller has and the roles that would do. */
export function forbiddenDetail(role: Role, access: Access, via: 'key' | 'user' = 'key'): string {
  // A person is never of role verify (users/rules.ts), so a user is told the user roles only.
  const allowed = via === 'user' ? ALLOWED[access].filter((r) => r !== 'verify') : ALLOWED[access];
  return `this ${via}'s role is ${role}; this request needs a ${via} of role ${allowed.length === 1 ? allowed[0] : `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`}`;
}

/** Whether the caller reaches what `reach` names: null when it does, else the refusal's code and sentence. */
export function reachRefusal(principal: Pick<Principal, 'via' | 'mode'>, reach: Reach): { code: ErrorCode; detail: string } | null {
  if (reach === 'team' && principal.via === 'key' && principal.mode === 'sandbox')
    return {
      code: 'SandboxReach',
      detail: "the team's people belong to both its worlds: managing them needs a production admin key or an admin signed in to the console",
    };
  if (reach === 'person' && principal.via === 'key')
    return {
      code: 'ConsoleOnly',
      detail: "a reset link hands over a person's account, so it is answered only to an admin signed in to the console (on the host: tapproof users reset)",
    };
  if (reach === 'self' && principal.via === 'key')
    return { code: 'PersonOnly', detail: 'notification settings belong to a person: sign in to the console; a key has none' };
  return null;
}

/** True when the caller reaches the whole team: what `reach: 'team'` admits. */
export const reachesTeam = (principal: Pick<Principal, 'via' | 'mode'>): boolean => reachRefusal(principal, 'team') === null;
