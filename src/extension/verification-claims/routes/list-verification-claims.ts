import type { RouteApp } from '../../../http/route-app.js';
import type { Kernel } from '../../../kernel.js';
import { sendDocument } from '../../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../../http/schemas.js';
import { VerificationClaimList } from '../schemas.js';
import { renderVerificationClaim } from '../serializer.js';
import * as claims from '../service.js';

export default function listVerificationClaimsRoute(app: RouteApp, ctx: Kernel) {
  app.get('/verifications/:id/claims', {
    config: { access: 'read' },
    schema: {
      summary: "A verification's claims, newest first",
      operationId: 'listVerificationClaims',
      description:
        'The pages the verification was claimed on through the extension API (POST /claims), at most the newest 100; `meta.total_count` counts them all (docs/extension.md, "Claims").',
      tags: ['verifications'],
      params: IdParam,
      response: { 200: answer("The verification's claims.", VerificationClaimList), ...errorResponses(401, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      const { rows, total } = await claims.list(ctx, request.principal, request.params.id);
      return sendDocument(reply, 200, { data: rows.map(renderVerificationClaim), meta: { total_count: total } });
    },
  });
}
