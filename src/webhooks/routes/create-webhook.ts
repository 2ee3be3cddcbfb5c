import { callerOf } from '../../http/auth.js';
import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { readCreateDocument } from '../documents.js';
import { CreateWebhookBody, WebhookDocument } from '../schemas.js';
import { renderWebhook } from '../serializer.js';
import { createWebhook } from '../service.js';

export default function createWebhookRoute(app: RouteApp, ctx: Kernel & MastersState) {
  app.post('/webhooks', {
    config: { access: 'write' },
    schema: {
      summary: 'Register a webhook (the secret is shown only in this response)',
      operationId: 'createWebhook',
      tags: ['webhooks'],
      body: CreateWebhookBody,
      response: {
        201: answer('Created: the webhook with its signing secret, shown only here.', WebhookDocument),
        ...errorResponses(400, 401, 406, 413, 415, 422, 429),
      },
    },
    handler: async (request, reply) => {
      const { row, secret } = await createWebhook(ctx, callerOf(request), readCreateDocument(request.body));
      return sendDocument(reply, 201, { data: renderWebhook(row, ctx.clock.nowMicros(), secret) });
    },
  });
}
