import type { ExtensionContext } from '../context.js';
import { answer } from '../../http/schemas.js';
import type { RouteApp } from '../../http/route-app.js';
import type { Mode } from '../../db/schema.js';
import { claimsOf } from '../claims.js';
import { ClaimList, ClaimsQuery, extErrors, extOperation } from '../schemas.js';

export default function listClaimsRoute(app: RouteApp, ctx: ExtensionContext, mode: Mode) {
  app.get('/claims', {
    schema: {
      summary: 'The claims linked to a URL, newest first (at most 100)',
      ...extOperation('list', 'Claims', mode),
      querystring: ClaimsQuery,
      response: { 200: answer('The claims linked to the resource URL.', ClaimList), ...extErrors(400, 429) },
    },
    handler: async (request) => ({ claims: await claimsOf(ctx, mode, request.query.resource_url) }),
  });
}
