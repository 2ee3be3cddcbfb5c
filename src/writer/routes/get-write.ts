import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { WriteDocument } from '../schemas.js';
import { renderWrite } from '../serializer.js';
import { getWrite } from '../service.js';

export default function getWriteRoute(app: RouteApp, ctx: Kernel & MastersState) {
  app.get('/writer/writes/:id', {
    config: { access: 'read' },
    schema: {
      summary: 'Retrieve a write',
      operationId: 'getWrite',
      tags: ['writer'],
      params: IdParam,
      response: { 200: answer('The write.', WriteDocument), ...errorResponses(401, 404, 406, 429) },
    },
    handler: async (request, reply) => sendDocument(reply, 200, { data: renderWrite(await getWrite(ctx, request.principal, request.params.id)) }),
  });
}
