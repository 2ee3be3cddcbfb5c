import { callerOf } from '../../../http/auth.js';
import type { Kernel } from '../../../kernel.js';
import type { RouteApp } from '../../../http/route-app.js';
import { errorResponses } from '../../../http/schemas.js';
import { HoldingParams } from '../schemas.js';
import { unsetTokenHolding } from '../service.js';

export default function deleteHoldingRoute(app: RouteApp, ctx: Kernel): void {
  app.delete('/tokens/:id/holdings/:address', {
    config: { access: 'write' },
    schema: {
      summary: "Remove an address's holding of a token",
      description: 'From the embedded holdings table (as `tapproof holdings unset`).',
      operationId: 'deleteHolding',
      tags: ['catalog'],
      params: HoldingParams,
      response: { 204: { description: 'Removed.', type: 'null' }, ...errorResponses(400, 401, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      await unsetTokenHolding(ctx, callerOf(request), request.params.id, request.params.address);
      return reply.code(204).send();
    },
  });
}
