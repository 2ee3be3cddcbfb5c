import { callerOf } from '../../http/auth.js';
import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { readBatchUpdateDocument } from '../documents.js';
import { TagsDocument, UpdateTagsBody } from '../schemas.js';
import { renderTag } from '../serializer.js';
import { updateTags } from '../service.js';

export default function updateTagsRoute(app: RouteApp, ctx: Kernel) {
  app.patch('/tags', {
    config: { access: 'write' },
    schema: {
      summary: 'Update many tags in one transaction',
      operationId: 'updateTags',
      tags: ['tags'],
      body: UpdateTagsBody,
      response: { 200: answer('Every updated tag, in the order sent.', TagsDocument), ...errorResponses(400, 401, 404, 406, 413, 415, 422, 429) },
    },
    handler: async (request, reply) => {
      const rows = await updateTags(ctx, callerOf(request), readBatchUpdateDocument(request.body));
      return sendDocument(reply, 200, { data: rows.map(renderTag) });
    },
  });
}
