import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import { sendDocument } from '../../http/jsonapi.js';
import { listCursors } from '../../http/cursor.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { listVerifications } from '../history.js';
import { ListVerificationsQuery, readListVerificationsQuery } from '../list-query.js';
import { VerificationPage } from '../schemas.js';
import { renderVerification } from '../serializer.js';

export default function listVerificationsRoute(app: RouteApp, ctx: Kernel & MastersState) {
  app.get('/verifications', {
    config: { access: 'read' },
    schema: {
      summary: "List the world's verifications, newest first",
      operationId: 'listVerifications',
      tags: ['verifications'],
      querystring: ListVerificationsQuery,
      response: { 200: answer('A page of verifications, newest first.', VerificationPage), ...errorResponses(400, 401, 406, 429) },
    },
    handler: async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const cursors = listCursors(ctx.masters, 'verifications', request.principal, query);
      const { rows, next } = await listVerifications(ctx, request.principal, await readListVerificationsQuery(query, cursors));
      return sendDocument(reply, 200, { data: rows.map(renderVerification), links: { next: await cursors.next(request.url.split('?')[0]!, next) } });
    },
  });
}
