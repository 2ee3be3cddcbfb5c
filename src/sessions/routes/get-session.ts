import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { SessionDocument } from '../schemas.js';
import { renderSession } from '../serializer.js';
import { getSession } from '../service.js';

export default function getSessionRoute(app: RouteApp, ctx: Kernel): void {
  app.get('/sessions/:id', {
    config: { access: 'read+verify' },
    schema: {
      summary: 'Retrieve a session',
      operationId: 'getSession',
      tags: ['sessions'],
      params: IdParam,
      response: { 200: answer('The session.', SessionDocument), ...errorResponses(401, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      const { row, verificationIds } = await getSession(ctx, request.principal, request.params.id);
      return sendDocument(reply, 200, { data: renderSession(row, verificationIds, ctx.clock.nowMicros()) });
    },
  });
}
