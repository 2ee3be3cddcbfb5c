import { callerOf } from '../../http/auth.js';
import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import type { RouteApp } from '../../http/route-app.js';
import { IdParam, errorResponses } from '../../http/schemas.js';
import { deleteWebhook } from '../service.js';

export default function deleteWebhookRoute(app: RouteApp, ctx: Kernel & MastersState) {
  app.delete('/webhooks/:id', {
    config: { access: 'write' },
    schema: {
      summary: 'Delete a webhook (pending deliveries are dropped)',
      operationId: 'deleteWebhook',
      tags: ['webhooks'],
      params: IdParam,
      response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(401, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      await deleteWebhook(ctx, callerOf(request), request.params.id);
      return reply.code(204).send();
    },
  });
}
