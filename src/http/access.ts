// What each role of API key may call. Every route of the platform API declares its access in its
// options (`config: { access: 'write' }`); installAuth refuses to register one that does not, so a
// new route cannot be reachable by every key by accident.
//   admin   everything, keys included
//   write   everything but keys
//   read    GET only
//   verify  what a landing page's backend needs: verify a scan, read a verification and a session
import type { Role } from '../db/schema.js';

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

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
}

export const allowedRoles = (access: Access): readonly Role[] => ALLOWED[access];

export const allows = (role: Role, access: Access): boolean => ALLOWED[access].includes(role);

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/** The JSON:API `detail` of a 403: the role the caller has and the roles that would do. */
export function forbiddenDetail(role: Role, access: Access, via: 'key' | 'user' = 'key'): string {
  const allowed = ALLOWED[access];
  return `this ${via}'s role is ${role}; this request needs a ${via} of role ${allowed.length === 1 ? allowed[0] : `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`}`;
}
