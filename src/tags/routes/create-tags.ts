import { callerOf } from '../../http/auth.js';
import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { readCreateDocument } from '../documents.js';
import { CreateTagsBody, TagsDocument } from '../schemas.js';
import { renderTag } from '../serializer.js';
import { createTags } from '../service.js';

export default function createTagsRoute(app: RouteApp, ctx: Kernel) {
  app.post('/tags', {
    config: { access: 'write' },
    schema: {
      summary: 'Create tags (1 to 500)',
      operationId: 'createTags',
      tags: ['tags'],
      body: CreateTagsBody,
      response: { 201: answer('Created: every tag of the batch, in the order sent.', TagsDocument), ...errorResponses(400, 401, 406, 413, 415, 422, 429) },
    },
    handler: async (request, reply) => {
      const rows = await createTags(ctx, callerOf(request), readCreateDocument(request.body));
      return sendDocument(reply, 201, { data: rows.map(renderTag) });
    },
  });
}
