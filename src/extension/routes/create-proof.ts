import type { ExtensionContext } from '../context.js';
import { answer } from '../../http/schemas.js';
import type { RouteApp } from '../../http/route-app.js';
import type { Mode } from '../../db/schema.js';
import { EXT_BODY_LIMIT } from '../http.js';
import { readProof } from '../documents.js';
import { proveOwnership } from '../proofs.js';
import { extErrors, extOperation, PathId, ProofBody, ProofResult } from '../schemas.js';

export default function createProofRoute(app: RouteApp, ctx: ExtensionContext, mode: Mode) {
  app.post('/verifications/:id/proof', {
    bodyLimit: EXT_BODY_LIMIT,
    schema: {
      summary: 'Prove ownership with a signed challenge',
      description:
        "Errors 400: `Invalid or expired challenge` (unknown, used, expired, or another verification's), `Signature verification failed`, `Address does not hold the required token`; 500 `server error, try again later` when the holdings provider cannot answer.",
      ...extOperation('create', 'Proof', mode),
      params: PathId,
      body: ProofBody,
      response: { 200: answer('Whether the signed challenge proves the holding.', ProofResult), ...extErrors(400, 404, 413, 415, 429, 500) },
    },
    handler: async (request) => proveOwnership(ctx, mode, { pathId: request.params.id, proof: readProof(request.body), log: request.log }),
  });
}
