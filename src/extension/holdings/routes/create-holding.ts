import { callerOf } from '../../../http/auth.js';
import type { Kernel } from '../../../kernel.js';
import type { RouteApp } from '../../../http/route-app.js';
import { sendDocument } from '../../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../../http/schemas.js';
import { readCreateDocument } from '../../catalog/documents.js';
import { renderHolding } from '../../catalog/serializer.js';
import { CreateHoldingBody, HoldingDocument } from '../schemas.js';
import { setTokenHolding } from '../service.js';

export default function createHoldingRoute(app: RouteApp, ctx: Kernel): void {
  app.post('/tokens/:id/holdings', {
    config: { access: 'write' },
    schema: {
      summary: 'Set how much of a token an address holds',
      description: 'In the embedded holdings table (as `tapproof holdings set`); setting it again replaces the quantity.',
      operationId: 'createHolding',
      tags: ['catalog'],
      params: IdParam,
      body: CreateHoldingBody,
      response: {
        201: answer('Created: the address held none of the token before.', HoldingDocument),
        200: answer("The address's quantity, replaced.", HoldingDocument),
        ...errorResponses(400, 401, 404, 406, 413, 415, 422, 429),
      },
    },
    handler: async (request, reply) => {
      const attributes = readCreateDocument(request.body, 'holdings', ['address']);
      const { row, created } = await setTokenHolding(ctx, callerOf(request), request.params.id, attributes);
      return sendDocument(reply, created ? 201 : 200, { data: renderHolding(row) });
    },
  });
}
