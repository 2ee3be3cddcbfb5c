// Console users as a feature: the session authentication the platform API's scope accepts beside bearer
// keys (src/http/auth.ts), and the sign-in routes under /auth (src/users/auth-routes).
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../world.js';
import type { UsersContext } from './context.js';
import { SESSION_COOKIE, principalOf, signedInSession } from './sessions.js';

export function sessionAuthentication(ctx: UsersContext) {
  return async (request: FastifyRequest): Promise<Principal | null> => {
    if (request.cookies[SESSION_COOKIE] === undefined) return null;
    return principalOf(await signedInSession(ctx, request));
  };
}
