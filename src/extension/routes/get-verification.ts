import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Mode } from '../../db/schema.js';
import { findShownVerification } from '../lookup.js';
import { PathId, PublicVerification, extErrors } from '../schemas.js';
import { renderPublicVerification } from '../serializer.js';

export default function getVerificationRoute(app: FastifyInstance, ctx: AppContext, mode: Mode) {
  app.get<{ Params: { id: string } }>('/verifications/:id', {
    schema: {
      summary: 'Read a verification (extension API)',
      description: 'By its VRF_ id or its UUID. Only genuine verifications of this base URL\'s mode are shown (docs/extension.md).',
      tags: ['extension'],
      hide: mode === 'sandbox',
      params: PathId,
      response: { 200: PublicVerification, ...extErrors(400, 404, 429) },
    },
    handler: async (request) => renderPublicVerification(await findShownVerification(ctx.db.kysely, mode, request.params.id)),
  });
}
