import type { ExtensionContext } from '../context.js';
import { answer } from '../../http/schemas.js';
import type { RouteApp } from '../../http/route-app.js';
import type { Mode } from '../../db/schema.js';
import { findShownVerification } from '../lookup.js';
import { extErrors, extOperation, PathId, PublicVerification } from '../schemas.js';
import { renderPublicVerification } from '../serializer.js';

export default function getVerificationRoute(app: RouteApp, ctx: ExtensionContext, mode: Mode) {
  app.get('/verifications/:id', {
    schema: {
      summary: 'Read a verification (extension API)',
      description: "By its VRF_ id or its UUID. Only genuine verifications of this base URL's mode are shown (docs/extension.md).",
      ...extOperation('get', 'PublicVerification', mode),
      params: PathId,
      response: { 200: answer('The verification as a landing page may show it.', PublicVerification), ...extErrors(400, 404, 429) },
    },
    handler: async (request) => renderPublicVerification(await findShownVerification(ctx.db.kysely, mode, request.params.id)),
  });
}
