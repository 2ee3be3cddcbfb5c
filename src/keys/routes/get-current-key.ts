import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { DomainError } from '../../errors.js';
import { sendDocument } from '../../http/jsonapi.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { findKey } from '../service.js';
import { KeyDocument } from '../schemas.js';
import { renderKey } from '../serializer.js';

// Every key may read itself: a client (the console) learns its role and expiry before it offers
// what the role cannot do.
export default function getCurrentKeyRoute(app: RouteApp, { db }: Kernel): void {
  app.get('/keys/current', {
    config: { access: 'any' },
    schema: {
      summary: 'Retrieve the key making the request (never its secret); open to every role',
      operationId: 'getCurrentKey',
      tags: ['keys'],
      response: { 200: answer('The calling key, without its secret.', KeyDocument), ...errorResponses(401, 406, 429) },
    },
    handler: async (request, reply) => {
      const { via, id, teamId, mode } = request.principal;
      // A console session has no key: the console reads who is signed in from GET /auth/session.
      if (via !== 'key') throw new DomainError('NotFound', [], undefined, 'signed in as a user of the console, not with a key');
      const key = await findKey(db.kysely, { teamId, mode }, id);
      // Revoked between authentication and this read.
      if (!key) throw new DomainError('Unauthorized');
      return sendDocument(reply, 200, { data: renderKey(key) });
    },
  });
}
