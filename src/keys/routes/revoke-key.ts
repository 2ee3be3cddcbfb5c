import { callerOf } from '../../http/auth.js';
import type { RouteApp } from '../../http/route-app.js';
import { DomainError } from '../../errors.js';
import { IdParam, errorResponses } from '../../http/schemas.js';
import { isId } from '../../ids.js';
import type { KeysContext } from '../context.js';
import * as keysRepo from '../repository.js';
import { revoke } from '../service.js';

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
      const { teamId, mode } = request.principal;
      const { id } = request.params;
      if (!isId('key', id) || !(await keysRepo.findKeyInWorld(ctx.db.kysely, id, teamId, mode))) throw new DomainError('NotFound');
      await revoke(ctx, id, callerOf(request).actor);
      return reply.code(204).send();
    },
  });
}
