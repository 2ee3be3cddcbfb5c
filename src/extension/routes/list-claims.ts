import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Mode } from '../../db/schema.js';
import { claimsOf } from '../claims.js';
import { ClaimList, ClaimsQuery, extErrors } from '../schemas.js';

export default function listClaimsRoute(app: FastifyInstance, ctx: AppContext, mode: Mode) {
  app.get<{ Querystring: { resource_url?: unknown } }>('/claims', {
    schema: {
      summary: 'The claims linked to a URL, newest first (at most 100)',
      tags: ['extension'],
      hide: mode === 'sandbox',
      querystring: ClaimsQuery,
      response: { 200: ClaimList, ...extErrors(400, 429) },
    },
    handler: async (request) => ({ claims: await claimsOf(ctx.db.kysely, mode, request.query.resource_url) }),
  });
}
