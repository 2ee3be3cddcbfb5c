import type { Kernel } from '../../../kernel.js';
import type { RouteApp } from '../../../http/route-app.js';
import { sendDocument } from '../../../http/jsonapi.js';
import { refuseUnknown } from '../../../http/query.js';
import { IdParam, answer, errorResponses } from '../../../http/schemas.js';
import { renderHolding } from '../../catalog/serializer.js';
import { HoldingList } from '../schemas.js';
import { listTokenHoldings } from '../service.js';

export default function listHoldingsRoute(app: RouteApp, ctx: Kernel): void {
  app.get('/tokens/:id/holdings', {
    config: { access: 'read' },
    schema: {
      summary: 'List who holds a token in the embedded holdings table',
      description: 'The table the embedded holdings provider answers from (always in the sandbox; in production unless a chain provider is configured).',
      operationId: 'listHoldings',
      tags: ['catalog'],
      params: IdParam,
      response: { 200: answer("The token's holdings.", HoldingList), ...errorResponses(400, 401, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      refuseUnknown(request.query as Record<string, unknown>, []);
      return sendDocument(reply, 200, { data: (await listTokenHoldings(ctx, request.principal, request.params.id)).map(renderHolding) });
    },
  });
}
