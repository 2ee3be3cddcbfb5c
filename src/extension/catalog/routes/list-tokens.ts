import type { Kernel } from '../../../kernel.js';
import type { RouteApp } from '../../../http/route-app.js';
import { sendDocument } from '../../../http/jsonapi.js';
import { refuseUnknown } from '../../../http/query.js';
import { answer, errorResponses } from '../../../http/schemas.js';
import { TokenList } from '../schemas.js';
import { renderToken } from '../serializer.js';
import { listTokens } from '../service.js';

export default function listTokensRoute(app: RouteApp, ctx: Kernel): void {
  app.get('/tokens', {
    config: { access: 'read' },
    schema: {
      summary: "List the world's tokens",
      description: 'The tokens a tag can be linked to: its owner proves holding one on the extension API.',
      operationId: 'listTokens',
      tags: ['catalog'],
      response: { 200: answer("The world's tokens.", TokenList), ...errorResponses(400, 401, 406, 429) },
    },
    handler: async (request, reply) => {
      refuseUnknown(request.query as Record<string, unknown>, []);
      return sendDocument(reply, 200, { data: (await listTokens(ctx, request.principal)).map(renderToken) });
    },
  });
}
