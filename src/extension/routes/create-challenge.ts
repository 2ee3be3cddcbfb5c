import type { ExtensionContext } from '../context.js';
import { answer } from '../../http/schemas.js';
import type { RouteApp } from '../../http/route-app.js';
import type { Mode } from '../../db/schema.js';
import { issueChallenge } from '../challenges.js';
import { EXT_BODY_LIMIT } from '../http.js';
import { Challenge, ChallengeBody, extErrors, extOperation, PathId } from '../schemas.js';

export default function createChallengeRoute(app: RouteApp, ctx: ExtensionContext, mode: Mode) {
  app.post('/verifications/:id/challenge', {
    bodyLimit: EXT_BODY_LIMIT,
    schema: {
      summary: 'Issue a single-use ownership challenge (expires after 5 minutes)',
      description: 'Ethereum tokens: send `address` (EIP-4361 names the signer). 400 `No token is linked to this verification` when the tag has no token.',
      ...extOperation('create', 'Challenge', mode),
      params: PathId,
      body: ChallengeBody,
      response: { 200: answer('The challenge for the holder to sign.', Challenge), ...extErrors(400, 404, 413, 415, 429) },
    },
    handler: async (request) =>
      issueChallenge(ctx, mode, {
        pathId: request.params.id,
        body: request.body,
        origin: request.headers.origin,
        host: request.headers.host,
        log: request.log,
      }),
  });
}
