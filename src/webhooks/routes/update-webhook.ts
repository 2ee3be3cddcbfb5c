import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, errorResponses } from '../../http/schemas.js';
import { readUpdateDocument } from '../documents.js';
import { UpdateWebhookBody, WebhookDocument } from '../schemas.js';
import { renderWebhook } from '../serializer.js';
import { changeWebhook } from '../service.js';

export default function updateWebhookRoute(app: FastifyInstance, ctx: AppContext) {
  app.patch<{ Params: { id: string } }>('/webhooks/:id', {
    schema: {
      summary: 'Change url, events or enabled; rotate the secret',
      tags: ['webhooks'],
      params: IdParam,
      body: UpdateWebhookBody,
      response: { 200: WebhookDocument, ...errorResponses(400, 401, 404, 406, 413, 415, 422, 429) },
    },
    handler: async (request, reply) => {
      const attributes = readUpdateDocument(request.body, request.params.id);
      const { row, secret } = await changeWebhook(ctx, request.principal, request.params.id, attributes);
      return sendDocument(reply, 200, { data: renderWebhook(row, ctx.clock.nowMicros(), secret) });
    },
  });
}
