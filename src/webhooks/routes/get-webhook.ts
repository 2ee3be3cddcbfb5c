import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { WebhookDocument } from '../schemas.js';
import { renderWebhook } from '../serializer.js';
import { getWebhook } from '../service.js';

export default function getWebhookRoute(app: RouteApp, ctx: Kernel & MastersState) {
  app.get('/webhooks/:id', {
    config: { access: 'read' },
    schema: {
      summary: 'Retrieve a webhook',
      operationId: 'getWebhook',
      tags: ['webhooks'],
      params: IdParam,
      response: { 200: answer('The webhook (never its secret).', WebhookDocument), ...errorResponses(401, 404, 406, 429) },
    },
    handler: async (request, reply) =>
      sendDocument(reply, 200, { data: renderWebhook(await getWebhook(ctx, request.principal, request.params.id), ctx.clock.nowMicros()) }),
  });
}
