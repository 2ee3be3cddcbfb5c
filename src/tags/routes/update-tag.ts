import { callerOf } from '../../http/auth.js';
import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { readUpdateDocument } from '../documents.js';
import { TagDocument, UpdateTagBody } from '../schemas.js';
import { renderTag } from '../serializer.js';
import { updateTags } from '../service.js';

export default function updateTagRoute(app: RouteApp, ctx: Kernel) {
  app.patch('/tags/:id', {
    config: { access: 'write' },
    schema: {
      summary: 'Update a tag (url only while created)',
      operationId: 'updateTag',
      tags: ['tags'],
      params: IdParam,
      body: UpdateTagBody,
      response: { 200: answer('The updated tag.', TagDocument), ...errorResponses(400, 401, 404, 406, 413, 415, 422, 429) },
    },
    handler: async (request, reply) => {
      const attributes = readUpdateDocument(request.body, request.params.id);
      const [row] = await updateTags(ctx, callerOf(request), [{ id: request.params.id, attributes }]);
      return sendDocument(reply, 200, { data: renderTag(row) });
    },
  });
}
