import type { ExtensionContext } from '../context.js';
import { answer } from '../../http/schemas.js';
import type { RouteApp } from '../../http/route-app.js';
import type { Mode } from '../../db/schema.js';
import { hourlyBudget } from '../../http/rate-limit.js';
import { createClaim } from '../claims.js';
import { readClaim } from '../documents.js';
import { EXT_BODY_LIMIT } from '../http.js';
import { ClaimBody, ClaimCreated, extErrors, extOperation } from '../schemas.js';

export default function createClaimRoute(app: RouteApp, ctx: ExtensionContext, mode: Mode) {
  app.post('/claims', {
    bodyLimit: EXT_BODY_LIMIT,
    schema: {
      summary: 'Link a genuine verification to a URL',
      ...extOperation('create', 'Claim', mode),
      body: ClaimBody,
      response: {
        200: answer('The claim already made for this verification and URL.', ClaimCreated),
        201: answer('Created: the claim.', ClaimCreated),
        ...extErrors(400, 404, 413, 415, 429),
      },
    },
    onRequest: hourlyBudget(app, `claims-${mode}`, ctx.config.claimsPerHour),
    handler: async (request, reply) => {
      const { claim, created } = await createClaim(ctx, mode, readClaim(request.body));
      return reply.code(created ? 201 : 200).send(claim);
    },
  });
}
