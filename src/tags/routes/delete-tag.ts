import { callerOf } from '../../http/auth.js';
import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { IdParam, errorResponses } from '../../http/schemas.js';
import { deleteTag } from '../service.js';

export default function deleteTagRoute(app: RouteApp, ctx: Kernel) {
  app.delete('/tags/:id', {
    config: { access: 'write' },
    schema: {
      summary: 'Delete a tag never written to a chip',
      operationId: 'deleteTag',
      tags: ['tags'],
      params: IdParam,
      response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(401, 404, 406, 409, 429) },
    },
    handler: async (request, reply) => {
      await deleteTag(ctx, callerOf(request), request.params.id);
      return reply.code(204).send();
    },
  });
}
