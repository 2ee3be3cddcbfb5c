import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, errorResponses } from '../../http/schemas.js';
import { VerificationDocument } from '../schemas.js';
import { renderVerification } from '../serializer.js';
import { getVerification } from '../service.js';

export default function getVerificationRoute(app: FastifyInstance, ctx: AppContext) {
  app.get<{ Params: { id: string } }>('/verifications/:id', {
    schema: { summary: 'Retrieve a verification', tags: ['verifications'], params: IdParam, response: { 200: VerificationDocument, ...errorResponses(401, 404, 406, 429) } },
    handler: async (request, reply) => sendDocument(reply, 200, { data: renderVerification(await getVerification(ctx, request.principal, request.params.id)) }),
  });
}
