import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Mode } from '../../db/schema.js';
import { EXT_BODY_LIMIT } from '../http.js';
import { proveOwnership } from '../proofs.js';
import { PathId, ProofBody, ProofResult, extErrors } from '../schemas.js';

export default function createProofRoute(app: FastifyInstance, ctx: AppContext, mode: Mode) {
  app.post<{ Params: { id: string } }>('/verifications/:id/proof', {
    bodyLimit: EXT_BODY_LIMIT,
    schema: {
      summary: 'Prove ownership with a signed challenge',
      description:
        'Errors 400: `Invalid or expired challenge` (unknown, used, expired, or another verification\'s), `Signature verification failed`, `Address does not hold the required token`; 500 `server error, try again later` when the holdings provider cannot answer.',
      tags: ['extension'],
      hide: mode === 'sandbox',
      params: PathId,
      body: ProofBody,
      response: { 200: ProofResult, ...extErrors(400, 404, 413, 415, 429, 500) },
    },
    handler: async (request) => proveOwnership(ctx, mode, request.params.id, request.body, request.log),
  });
}
