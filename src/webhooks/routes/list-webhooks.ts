import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import { sendDocument } from '../../http/jsonapi.js';
import { refuseUnknown } from '../../http/query.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { WebhookList } from '../schemas.js';
import { renderWebhook } from '../serializer.js';
import { listWebhooks } from '../service.js';

export default function listWebhooksRoute(app: RouteApp, ctx: Kernel & MastersState) {
  app.get('/webhooks', {
    config: { access: 'read' },
    schema: {
      summary: "List the world's webhooks (never a secret)",
      operationId: 'listWebhooks',
      tags: ['webhooks'],
      response: { 200: answer("The world's webhooks.", WebhookList), ...errorResponses(400, 401, 406, 429) },
    },
    handler: async (request, reply) => {
      refuseUnknown(request.query as Record<string, unknown>, []);
      const now = ctx.clock.nowMicros();
      return sendDocument(reply, 200, { data: (await listWebhooks(ctx, request.principal)).map((row) => renderWebhook(row, now)) });
    },
  });
}
