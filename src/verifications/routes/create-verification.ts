import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { sendDocument } from '../../http/jsonapi.js';
import { errorResponses } from '../../http/schemas.js';
import { readVerificationDocument } from '../documents.js';
import { inArrivalOrder, passArrival } from '../arrival-order.js';
import { CreateVerificationBody, VerificationDocument } from '../schemas.js';
import { renderVerification } from '../serializer.js';
import { verifyScan } from '../service.js';

export default function createVerificationRoute(app: FastifyInstance, ctx: AppContext) {
  app.post('/verifications', {
    schema: {
      summary: 'Verify a scan',
      description: 'Answers whether the scanned URL is a genuine, fresh SUN message of one of the team\'s configured tags. Every attempt is stored.',
      tags: ['verifications'],
      body: CreateVerificationBody,
      response: { 201: VerificationDocument, ...errorResponses(400, 401, 404, 406, 413, 415, 422, 429) },
    },
    config: { arrivalOrder: true },
    handler: async (request, reply) => {
      try {
        const row = await verifyScan(ctx, request.principal, readVerificationDocument(request.body), (enqueue) => inArrivalOrder(app, request, enqueue));
        return sendDocument(reply, 201, { data: renderVerification(row) });
      } finally {
        passArrival(app, request);
      }
    },
  });
}
