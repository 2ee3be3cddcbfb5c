import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { sendDocument } from '../../http/jsonapi.js';
import { errorResponses } from '../../http/schemas.js';
import { ListQuerySchema, readListQuery } from '../list-query.js';
import { TagPage } from '../schemas.js';
import { renderTag } from '../serializer.js';
import { listWorldTags } from '../service.js';

export default function listTagsRoute(app: FastifyInstance, { db }: AppContext) {
  app.get('/tags', {
    schema: { summary: "List the team's tags", tags: ['tags'], querystring: ListQuerySchema, response: { 200: TagPage, ...errorResponses(400, 401, 406, 429) } },
    handler: async (request, reply) => {
      const query = readListQuery(request.query as Record<string, unknown>);
      const { rows, total } = await listWorldTags(db, request.principal, query);
      return sendDocument(reply, 200, { data: rows.map(renderTag), meta: { total_count: total, page: query.page, page_size: query.pageSize } });
    },
  });
}
