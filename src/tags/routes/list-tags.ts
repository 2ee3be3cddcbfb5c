import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { ListQuerySchema, readListQuery } from '../list-query.js';
import { TagPage } from '../schemas.js';
import { renderTag } from '../serializer.js';
import { listTags } from '../service.js';

export default function listTagsRoute(app: RouteApp, ctx: Kernel) {
  app.get('/tags', {
    config: { access: 'read' },
    schema: {
      summary: "List the team's tags",
      operationId: 'listTags',
      tags: ['tags'],
      querystring: ListQuerySchema,
      response: { 200: answer('One page of tags, with the total count.', TagPage), ...errorResponses(400, 401, 406, 429) },
    },
    handler: async (request, reply) => {
      const query = readListQuery(request.query);
      const { rows, total } = await listTags(ctx, request.principal, query);
      return sendDocument(reply, 200, { data: rows.map(renderTag), meta: { total_count: total, page: query.page, page_size: query.pageSize } });
    },
  });
}
