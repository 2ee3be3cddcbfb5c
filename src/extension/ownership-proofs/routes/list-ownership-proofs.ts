import type { RouteApp } from '../../../http/route-app.js';
import type { Kernel } from '../../../kernel.js';
import { sendDocument } from '../../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../../http/schemas.js';
import { OwnershipProofList } from '../schemas.js';
import { renderOwnershipProof } from '../serializer.js';
import * as proofs from '../service.js';

export default function listOwnershipProofsRoute(app: RouteApp, ctx: Kernel) {
  app.get('/verifications/:id/ownership-proofs', {
    config: { access: 'read' },
    schema: {
      summary: "A verification's ownership proofs, oldest first",
      operationId: 'listOwnershipProofs',
      description:
        'Every successful proof made through the extension API; `replaced_at` is set once a later proof took the ownership over (docs/extension.md, "Ownership").',
      tags: ['verifications'],
      params: IdParam,
      response: { 200: answer("The verification's ownership proofs.", OwnershipProofList), ...errorResponses(401, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      const rows = await proofs.list(ctx, request.principal, request.params.id);
      return sendDocument(reply, 200, { data: rows.map(renderOwnershipProof), meta: { total_count: rows.length } });
    },
  });
}
