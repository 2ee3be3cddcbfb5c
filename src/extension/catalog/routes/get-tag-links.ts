import type { Kernel } from '../../../kernel.js';
import type { RouteApp } from '../../../http/route-app.js';
import { sendDocument } from '../../../http/jsonapi.js';
import { refuseUnknown } from '../../../http/query.js';
import { IdParam, answer, errorResponses } from '../../../http/schemas.js';
import { getTag } from '../../../tags/index.js';
import { TagLinksDocument, findTagLinks, renderTagLinks } from '../tag-links.js';

export default function getTagLinksRoute(app: RouteApp, ctx: Kernel): void {
  app.get('/tags/:id/links', {
    config: { access: 'read' },
    schema: {
      summary: "Retrieve a tag's product and token",
      description: "What the tag's verifications show on the extension API: its product and the token its owner can prove (set by `tapproof tags link`).",
      operationId: 'getTagLinks',
      tags: ['tags'],
      params: IdParam,
      response: { 200: answer("The tag's links.", TagLinksDocument), ...errorResponses(400, 401, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      refuseUnknown(request.query as Record<string, unknown>, []);
      const id = request.params.id;
      await getTag(ctx, request.principal, id);
      return sendDocument(reply, 200, { data: renderTagLinks(id, await findTagLinks(ctx.db.kysely, request.principal, id)) });
    },
  });
}
