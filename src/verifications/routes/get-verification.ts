import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { VerificationDocument } from '../schemas.js';
import { renderVerification } from '../serializer.js';
import { getVerification } from '../service.js';

export default function getVerificationRoute(app: RouteApp, ctx: Kernel) {
  app.get('/verifications/:id', {
    config: { access: 'read+verify' },
    schema: {
      summary: 'Retrieve a verification',
      operationId: 'getVerification',
      tags: ['verifications'],
      params: IdParam,
      response: { 200: answer('The verification.', VerificationDocument), ...errorResponses(401, 404, 406, 429) },
    },
    handler: async (request, reply) => sendDocument(reply, 200, { data: renderVerification(await getVerification(ctx, request.principal, request.params.id)) }),
  });
}
