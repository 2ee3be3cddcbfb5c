import { callerOf } from '../../http/auth.js';
import type { RouteApp } from '../../http/route-app.js';
import { IdParam, errorResponses } from '../../http/schemas.js';
import type { KeysContext } from '../context.js';
import { getKey, revoke } from '../service.js';

export default function revokeKeyRoute(app: RouteApp, ctx: KeysContext): void {
  app.delete('/keys/:id', {
    config: { access: 'admin' },
    schema: {
      summary: 'Revoke a key of the same team and mode: every server refuses it from the next request on (a second revoke keeps the first time)',
      operationId: 'revokeKey',
      tags: ['keys'],
      params: IdParam,
      response: { 204: { type: 'null', description: 'Revoked' }, ...errorResponses(401, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      const key = await getKey(ctx.db.kysely, request.principal, request.params.id);
      await revoke(ctx, key.id, callerOf(request).actor);
      return reply.code(204).send();
    },
  });
}
