import { callerOf } from '../../../http/auth.js';
import type { Kernel } from '../../../kernel.js';
import type { RouteApp } from '../../../http/route-app.js';
import { sendDocument } from '../../../http/jsonapi.js';
import { answer, errorResponses } from '../../../http/schemas.js';
import { readCreateDocument } from '../documents.js';
import { CreateTokenBody, TokenDocument } from '../schemas.js';
import { renderToken } from '../serializer.js';
import { insertToken } from '../service.js';

export default function createTokenRoute(app: RouteApp, ctx: Kernel): void {
  app.post('/tokens', {
    config: { access: 'write' },
    schema: {
      summary: 'Create a token',
      description: "A token of the key's team and mode (as `tapproof tokens create`).",
      operationId: 'createToken',
      tags: ['catalog'],
      body: CreateTokenBody,
      response: { 201: answer('Created: the token.', TokenDocument), ...errorResponses(400, 401, 406, 413, 415, 422, 429) },
    },
    handler: async (request, reply) => {
      const row = await insertToken(ctx, callerOf(request), readCreateDocument(request.body, 'tokens', ['chain', 'name', 'symbol', 'supply']));
      return sendDocument(reply, 201, { data: renderToken(row) });
    },
  });
}
