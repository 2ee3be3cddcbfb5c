import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import { sendDocument } from '../../http/jsonapi.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { verificationStats } from '../history.js';
import { StatsQuery, readStatsQuery } from '../list-query.js';
import { VerificationStatsDocument } from '../schemas.js';

export default function verificationStatsRoute(app: RouteApp, ctx: Kernel) {
  app.get('/verifications/stats', {
    config: { access: 'read' },
    schema: {
      summary: "Counts of the world's verifications per UTC day, by reason and by country",
      operationId: 'getVerificationStats',
      tags: ['verifications'],
      querystring: StatsQuery,
      response: { 200: answer('The counts of the window.', VerificationStatsDocument), ...errorResponses(400, 401, 406, 429) },
    },
    handler: async (request, reply) => {
      const window = readStatsQuery(request.query as Record<string, unknown>, ctx.clock.nowMicros());
      return sendDocument(reply, 200, { meta: await verificationStats(ctx, request.principal, window) });
    },
  });
}
