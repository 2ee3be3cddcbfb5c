import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, errorResponses } from '../../http/schemas.js';
import { WebhookDocument } from '../schemas.js';
import { renderWebhook } from '../serializer.js';
import { getWebhook } from '../service.js';

export default function getWebhookRoute(app: FastifyInstance, ctx: AppContext) {
  app.get<{ Params: { id: string } }>('/webhooks/:id', {
    schema: { summary: 'Retrieve a webhook', tags: ['webhooks'], params: IdParam, response: { 200: WebhookDocument, ...errorResponses(401, 404, 406, 429) } },
    handler: async (request, reply) => sendDocument(reply, 200, { data: renderWebhook(await getWebhook(ctx, request.principal, request.params.id), ctx.clock.nowMicros()) }),
  });
}
