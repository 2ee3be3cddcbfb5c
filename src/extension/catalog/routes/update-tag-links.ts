import { callerOf } from '../../../http/auth.js';
import type { Kernel } from '../../../kernel.js';
import type { RouteApp } from '../../../http/route-app.js';
import { sendDocument } from '../../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../../http/schemas.js';
import { readLinksDocument } from '../documents.js';
import { TagLinksDocument, UpdateTagLinksBody } from '../schemas.js';
import { updateTagLinks } from '../service.js';
import { findTagLinks, renderTagLinks } from '../tag-links.js';

export default function updateTagLinksRoute(app: RouteApp, ctx: Kernel): void {
  app.patch('/tags/:id/links', {
    config: { access: 'write' },
    schema: {
      summary: 'Link a tag to a product and a token, or unlink them',
      description: "A product or token of the tag's team and mode (as `tapproof tags link`); null clears a link, and a link left out keeps its value.",
      operationId: 'updateTagLinks',
      tags: ['tags'],
      params: IdParam,
      body: UpdateTagLinksBody,
      response: { 200: answer("The tag's links.", TagLinksDocument), ...errorResponses(400, 401, 404, 406, 413, 415, 422, 429) },
    },
    handler: async (request, reply) => {
      const id = request.params.id;
      const attributes = readLinksDocument(request.body, id);
      await updateTagLinks(ctx, callerOf(request), id, attributes);
      return sendDocument(reply, 200, { data: renderTagLinks(id, await findTagLinks(ctx.db.kysely, request.principal, id)) });
    },
  });
}
