import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import { sendDocument } from '../../http/jsonapi.js';
import { listCursors } from '../../http/cursor.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { readListCasesQuery } from '../list-query.js';
import { CasePage, ListCasesQuery } from '../schemas.js';
import { renderCase } from '../serializer.js';
import { listCases } from '../service.js';

export default function listCasesRoute(app: RouteApp, ctx: Kernel & MastersState) {
  app.get('/cases', {
    config: { access: 'read' },
    schema: {
      summary: "List the world's cases, newest opened first, with counts per state",
      operationId: 'listCases',
      tags: ['cases'],
      querystring: ListCasesQuery,
      response: { 200: answer('A page of cases, newest opened first.', CasePage), ...errorResponses(400, 401, 406, 429) },
    },
    handler: async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const cursors = listCursors(ctx.masters, 'cases', request.principal, query);
      const { rows, counts, next } = await listCases(ctx, request.principal, await readListCasesQuery(query, cursors));
      return sendDocument(reply, 200, { data: rows.map(renderCase), links: { next: await cursors.next(request.url.split('?')[0]!, next) }, meta: { counts } });
    },
  });
}
