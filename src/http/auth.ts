import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../errors.js';
import type { Caller, Principal } from '../world.js';
import { allows, forbiddenDetail, reachRefusal } from './access.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

/** How a scope's bearer keys are checked: the keys feature provides it (src/keys/feature.ts). */
export interface Authentication {
  /** The key's principal; null when the key is unknown, revoked or expired. Synchronous when the key is cached. */
  authenticate(keyText: string): Principal | null | Promise<Principal | null>;
  /** Starts following revokes while the app runs; returns the function that stops it. */
  follow(): () => Promise<void>;
  /**
   * The principal of the console session the request's cookie names, for a request without a bearer key
   * (the users feature provides it, src/users/auth-routes/index.ts): null when it has no session cookie; throws
   * NotSignedIn for a cookie whose session has ended and CsrfRejected for a change without its CSRF token.
   */
  session?(request: FastifyRequest): Promise<Principal | null>;
}

/**
 * Every route in the scope requires `Authorization: Bearer <key>` (failures are 401), or else a console
 * session, of a role its `access` allows (otherwise 403, src/http/access.ts). A bearer key, when sent,
 * is the only credential read. A route registered without an access fails the app's start.
 */
export function installAuth(app: FastifyInstance, auth: Authentication): void {
  app.addHook('onClose', auth.follow());
  app.addHook('onRoute', (route) => {
    if (route.config?.access === undefined && route.method !== 'HEAD')
      throw new Error(`${String(route.method)} ${route.url} declares no access (config.access)`);
  });
  app.decorateRequest('principal', null as unknown as Principal);
  const admit = (request: FastifyRequest, principal: Principal | null): void => {
    if (!principal) throw new DomainError('Unauthorized');
    const access = request.routeOptions.config.access!;
    if (!allows(principal.role, access))
      throw new DomainError(principal.via === 'user' ? 'UserForbidden' : 'Forbidden', [], undefined, forbiddenDetail(principal.role, access, principal.via));
    const refused = reachRefusal(principal, request.routeOptions.config.reach ?? 'world');
    if (refused) throw new DomainError(refused.code, [], undefined, refused.detail);
    request.principal = principal;
  };
  // A callback hook: a cached key is admitted in the same turn, with no promise (docs/throughput.md).
  app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    let found: Principal | null | Promise<Principal | null>;
    let refused: Error | undefined;
    try {
      const header = request.headers.authorization;
      const match = header === undefined ? null : /^Bearer +(\S+)\s*$/i.exec(header);
      found = match ? auth.authenticate(match[1]!) : header === undefined && auth.session ? auth.session(request) : null;
      if (!(found instanceof Promise)) admit(request, found);
    } catch (error) {
      refused = error as Error;
    }
    if (refused !== undefined || !(found! instanceof Promise)) return done(refused);
    found.then(
      (principal) => {
        try {
          admit(request, principal);
        } catch (error) {
          refused = error as Error;
        }
        done(refused);
      },
      (error: unknown) => done(error as Error),
    );
  });
}

/** The request's key or user as a caller: its world, and who, from where and in which request, for the audit log. */
export function callerOf(request: FastifyRequest): Caller {
  const { teamId, mode, via, id } = request.principal;
  return { teamId, mode, actor: { type: via, id, address: request.ip, requestId: request.id } };
}
