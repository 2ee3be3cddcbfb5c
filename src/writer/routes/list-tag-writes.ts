import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { refuseUnknown } from '../../http/query.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { listTagWrites } from '../service.js';
import { WriteList } from '../schemas.js';
import { renderWrite } from '../serializer.js';

export default function listTagWritesRoute(app: RouteApp, ctx: Kernel & MastersState): void {
  app.get('/tags/:id/writes', {
    config: { access: 'read' },
    schema: {
      summary: "List a tag's writes",
      description: 'Every remote personalization of the tag, newest first (at most 100): running, configured or failed, with why.',
      operationId: 'listTagWrites',
      tags: ['writer'],
      params: IdParam,
      response: { 200: answer("The tag's writes.", WriteList), ...errorResponses(400, 401, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      refuseUnknown(request.query as Record<string, unknown>, []);
      const rows = await listTagWrites(ctx, request.principal, request.params.id);
      return sendDocument(reply, 200, { data: rows.map(renderWrite) });
    },
  });
}
