import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Mode } from '../../db/schema.js';
import { createClaim } from '../claims.js';
import { EXT_BODY_LIMIT } from '../http.js';
import { ClaimBody, ClaimCreated, extErrors } from '../schemas.js';

export default function createClaimRoute(app: FastifyInstance, ctx: AppContext, mode: Mode) {
  app.post('/claims', {
    bodyLimit: EXT_BODY_LIMIT,
    schema: {
      summary: 'Link a genuine verification to a URL',
      tags: ['extension'],
      hide: mode === 'sandbox',
      body: ClaimBody,
      response: { 201: ClaimCreated, ...extErrors(400, 404, 413, 415, 429) },
    },
    handler: async (request, reply) => reply.code(201).send(await createClaim(ctx.db.kysely, mode, request.body, ctx.clock)),
  });
}
