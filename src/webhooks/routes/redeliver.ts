import { callerOf } from '../../http/auth.js';
import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import { sendDocument } from '../../http/jsonapi.js';
import { refuseUnknown } from '../../http/query.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { redeliver } from '../deliveries.js';
import { DeliveryDocument, DeliveryParams } from '../schemas.js';
import { renderDelivery } from '../serializer.js';

export default function redeliverRoute(app: RouteApp, ctx: Kernel & MastersState) {
  app.post('/webhooks/:id/deliveries/:eventId/redeliver', {
    config: { access: 'write' },
    schema: {
      summary: 'Send an event to the webhook again now, with a fresh retry schedule; attempts keep their numbering',
      operationId: 'createRedelivery',
      tags: ['webhooks'],
      params: DeliveryParams,
      response: { 202: answer('Accepted: the delivery, due now.', DeliveryDocument), ...errorResponses(400, 401, 404, 406, 409, 429) },
    },
    handler: async (request, reply) => {
      refuseUnknown(request.query as Record<string, unknown>, []);
      return sendDocument(reply, 202, { data: renderDelivery(await redeliver(ctx, callerOf(request), request.params.id, request.params.eventId)) });
    },
  });
}
