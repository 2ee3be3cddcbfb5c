import { callerOf } from '../../http/auth.js';
import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { readUpdateDocument } from '../documents.js';
import { UpdateWebhookBody, WebhookDocument } from '../schemas.js';
import { renderWebhook } from '../serializer.js';
import { updateWebhook } from '../service.js';

export default function updateWebhookRoute(app: RouteApp, ctx: Kernel & MastersState) {
  app.patch('/webhooks/:id', {
    config: { access: 'write' },
    schema: {
      summary: 'Change url, events or enabled; rotate the secret',
      operationId: 'updateWebhook',
      tags: ['webhooks'],
      params: IdParam,
      body: UpdateWebhookBody,
      response: {
        200: answer('The updated webhook; with rotate_secret, its new secret (shown only here).', WebhookDocument),
        ...errorResponses(400, 401, 404, 406, 413, 415, 422, 429),
      },
    },
    handler: async (request, reply) => {
      const attributes = readUpdateDocument(request.body, request.params.id);
      const { row, secret } = await updateWebhook(ctx, callerOf(request), request.params.id, attributes);
      return sendDocument(reply, 200, { data: renderWebhook(row, ctx.clock.nowMicros(), secret) });
    },
  });
}
