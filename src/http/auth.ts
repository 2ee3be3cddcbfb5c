import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../errors.js';
import type { Principal } from '../world.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

/** How a scope's bearer keys are checked: the keys feature provides it (src/keys/feature.ts). */
export interface Authentication {
  authenticate(keyText: string): Promise<Principal | null>;
  /** Starts following revokes while the app runs; returns the function that stops it. */
  follow(): () => Promise<void>;
}

/** Every route in the scope requires `Authorization: Bearer <key>`; failures are 401. */
export function installAuth(app: FastifyInstance, auth: Authentication): void {
  app.addHook('onClose', auth.follow());
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    const match = header === undefined ? null : /^Bearer +(\S+)\s*$/i.exec(header);
    const principal = match ? await auth.authenticate(match[1]) : null;
    if (!principal) throw new DomainError('Unauthorized');
    request.principal = principal;
  });
}
