import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { refuseUnknown } from '../../http/query.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { getTag } from '../../tags/index.js';
import * as writesRepo from '../repository.js';
import { WriteList } from '../schemas.js';
import { renderWrite } from '../serializer.js';

/** A tag is written a handful of times in its life; a list without pages is enough for its history. */
const HISTORY_LIMIT = 100;

export default function listTagWritesRoute(app: RouteApp, ctx: Kernel & MastersState): void {
  app.get('/tags/:id/writes', {
    config: { access: 'read' },
    schema: {
      summary: "List a tag's writes",
      description: 'Every remote personalization of the tag, newest first (at most 100): running, configured or failed, with why.',
      operationId: 'listTagWrites',
      tags: ['writer'],
      params: IdParam,
      response: { 200: answer("The tag's writes.", WriteList), ...errorResponses(400, 401, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      refuseUnknown(request.query as Record<string, unknown>, []);
      const id = request.params.id;
      await getTag(ctx, request.principal, id);
      const rows = await writesRepo.listTagWrites(ctx.db.kysely, request.principal, id, HISTORY_LIMIT);
      return sendDocument(reply, 200, { data: rows.map(renderWrite) });
    },
  });
}
