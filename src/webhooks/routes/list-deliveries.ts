import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import { sendDocument } from '../../http/jsonapi.js';
import { listCursors } from '../../http/cursor.js';
import { oneOf, pageSize, refuseUnknown } from '../../http/query.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { listDeliveries } from '../deliveries.js';
import { DELIVERY_STATUSES, DeliveriesQuery, DeliveryPage } from '../schemas.js';
import { renderDelivery } from '../serializer.js';

const isKey = (value: unknown): value is [number] => Array.isArray(value) && value.length === 1 && Number.isSafeInteger(value[0]) && (value[0] as number) > 0;

export default function listDeliveriesRoute(app: RouteApp, ctx: Kernel & MastersState) {
  app.get('/webhooks/:id/deliveries', {
    config: { access: 'read' },
    schema: {
      summary: "A webhook's deliveries, newest first, each with its attempts",
      operationId: 'listDeliveries',
      tags: ['webhooks'],
      params: IdParam,
      querystring: DeliveriesQuery,
      response: { 200: answer('A page of deliveries with their attempts.', DeliveryPage), ...errorResponses(400, 401, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      refuseUnknown(query, Object.keys(DeliveriesQuery.properties));
      const cursors = listCursors(ctx.masters, `webhooks/${request.params.id}/deliveries`, request.principal, query);
      const status = oneOf(query, 'status', DELIVERY_STATUSES);
      const size = pageSize(query);
      const page = { status, size, before: (await cursors.read(isKey))?.[0] };
      const { deliveries, next } = await listDeliveries(ctx, request.principal, request.params.id, page);
      return sendDocument(reply, 200, { data: deliveries.map(renderDelivery), links: { next: await cursors.next(request.url.split('?')[0]!, next) } });
    },
  });
}
