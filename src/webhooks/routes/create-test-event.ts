import { callerOf } from '../../http/auth.js';
import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import { sendDocument } from '../../http/jsonapi.js';
import { refuseUnknown } from '../../http/query.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { sendTestEvent } from '../deliveries.js';
import { DeliveryDocument } from '../schemas.js';
import { renderDelivery } from '../serializer.js';

export default function createTestEventRoute(app: RouteApp, ctx: Kernel & MastersState) {
  app.post('/webhooks/:id/test', {
    config: { access: 'write' },
    schema: {
      summary: 'Send a test event (`webhook.test`) to the webhook now, signed and retried like any other; no body',
      operationId: 'createTestEvent',
      tags: ['webhooks'],
      params: IdParam,
      response: { 202: answer("Accepted: the test event's delivery, due now.", DeliveryDocument), ...errorResponses(400, 401, 404, 406, 409, 429) },
    },
    handler: async (request, reply) => {
      refuseUnknown(request.query as Record<string, unknown>, []);
      return sendDocument(reply, 202, { data: renderDelivery(await sendTestEvent(ctx, callerOf(request), request.params.id)) });
    },
  });
}
