import type { VerifyContext } from '../context.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { readVerificationDocument } from '../documents.js';
import { inArrivalOrder, passArrival } from '../arrival-order.js';
import { CreateVerificationBody, VerificationDocument } from '../schemas.js';
import { renderVerification } from '../serializer.js';
import { verifyScan } from '../service.js';

export default function createVerificationRoute(app: RouteApp, ctx: VerifyContext) {
  // Without a trusted proxy the request's address is the brand's backend, not the phone: no country from it.
  const trustsProxy = ctx.config.trustProxy !== false && ctx.config.trustProxy !== 0;
  app.post('/verifications', {
    schema: {
      summary: 'Verify a scan',
      description: "Answers whether the scanned URL is a genuine, fresh SUN message of one of the team's configured tags. Every attempt is stored.",
      operationId: 'createVerification',
      tags: ['verifications'],
      body: CreateVerificationBody,
      response: {
        201: answer('Created: the verification and its verdict (genuine, reason).', VerificationDocument),
        ...errorResponses(400, 401, 404, 406, 413, 415, 422, 429),
      },
    },
    config: { access: 'write+verify', arrivalOrder: true },
    handler: async (request, reply) => {
      try {
        const scan = { ...readVerificationDocument(request.body), forwardedFor: trustsProxy ? request.ip : null };
        const { verification, repeat } = await verifyScan(ctx, request.principal, scan, (enqueue) => inArrivalOrder(ctx.arrival, request, enqueue));
        return sendDocument(reply, 201, { data: renderVerification(verification), ...(repeat ? { meta: { repeat: true } } : {}) });
      } finally {
        passArrival(ctx.arrival, request);
      }
    },
  });
}
