import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { TagDocument } from '../schemas.js';
import { renderTag } from '../serializer.js';
import { getTag } from '../service.js';

export default function getTagRoute(app: RouteApp, ctx: Kernel) {
  app.get('/tags/:id', {
    config: { access: 'read' },
    schema: {
      summary: 'Retrieve a tag',
      operationId: 'getTag',
      tags: ['tags'],
      params: IdParam,
      response: { 200: answer('The tag.', TagDocument), ...errorResponses(401, 404, 406, 429) },
    },
    handler: async (request, reply) => sendDocument(reply, 200, { data: renderTag(await getTag(ctx, request.principal, request.params.id)) }),
  });
}
