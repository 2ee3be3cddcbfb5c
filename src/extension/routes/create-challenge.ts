import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Mode } from '../../db/schema.js';
import { issueChallenge } from '../challenges.js';
import { EXT_BODY_LIMIT } from '../http.js';
import { Challenge, ChallengeBody, PathId, extErrors } from '../schemas.js';

export default function createChallengeRoute(app: FastifyInstance, ctx: AppContext, mode: Mode) {
  app.post<{ Params: { id: string } }>('/verifications/:id/challenge', {
    bodyLimit: EXT_BODY_LIMIT,
    schema: {
      summary: 'Issue a single-use ownership challenge (expires after 5 minutes)',
      description: 'Ethereum tokens: send `address` (EIP-4361 names the signer). 400 `No token is linked to this verification` when the tag has no token.',
      tags: ['extension'],
      hide: mode === 'sandbox',
      params: PathId,
      body: ChallengeBody,
      response: { 200: Challenge, ...extErrors(400, 404, 413, 415, 429) },
    },
    handler: async (request) =>
      issueChallenge(ctx, mode, request.params.id, request.body, { origin: request.headers.origin, host: request.headers.host, log: request.log }),
  });
}
