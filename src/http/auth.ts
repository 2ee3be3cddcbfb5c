import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { Principal } from '../keys/principal.js';
import { authenticate } from '../keys/service.js';
import { DomainError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

/** Every route in the scope requires `Authorization: Bearer <key>`; failures are 401. */
export function installAuth(app: FastifyInstance, ctx: AppContext): void {
  const { config } = ctx;
  // PostgreSQL: listen for revokes while the app runs (the principal cache is bypassed until then).
  const detach = ctx.principals.attach(config.database.kind === 'postgres' ? config.database.url : null);
  app.addHook('onClose', detach);
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    const match = header === undefined ? null : /^Bearer +(\S+)\s*$/i.exec(header);
    const principal = match ? await authenticate(ctx, match[1]) : null;
    if (!principal) throw new DomainError('Unauthorized');
    request.principal = principal;
  });
}
