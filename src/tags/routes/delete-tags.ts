import { callerOf } from '../../http/auth.js';
import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { readBatchDeleteDocument } from '../documents.js';
import { DeleteTagsBody, DeleteTagsResult } from '../schemas.js';
import { deleteManyTags } from '../service.js';

export default function deleteTagsRoute(app: RouteApp, ctx: Kernel) {
  app.delete('/tags', {
    config: { access: 'write' },
    schema: {
      summary: 'Delete many tags; configured ones are kept',
      operationId: 'deleteTags',
      tags: ['tags'],
      body: DeleteTagsBody,
      response: {
        200: answer('Which tags were deleted and which were kept (configured tags are never deleted).', DeleteTagsResult),
        ...errorResponses(400, 401, 406, 413, 415, 429),
      },
    },
    handler: async (request, reply) => {
      const meta = await deleteManyTags(ctx, callerOf(request), readBatchDeleteDocument(request.body));
      return sendDocument(reply, 200, { meta });
    },
  });
}
