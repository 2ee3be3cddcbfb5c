import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { IdParam, errorResponses } from '../../http/schemas.js';
import { removeWebhook } from '../service.js';

export default function deleteWebhookRoute(app: FastifyInstance, ctx: AppContext) {
  app.delete<{ Params: { id: string } }>('/webhooks/:id', {
    schema: { summary: 'Delete a webhook (pending deliveries are dropped)', tags: ['webhooks'], params: IdParam, response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(401, 404, 406, 429) } },
    handler: async (request, reply) => {
      await removeWebhook(ctx, request.principal, request.params.id);
      return reply.code(204).send();
    },
  });
}
