import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { renderVerification } from '../../verifications/index.js';
import { CaseDocument } from '../schemas.js';
import { renderCase, renderNote } from '../serializer.js';
import { getCase } from '../service.js';

export default function getCaseRoute(app: RouteApp, ctx: Kernel) {
  app.get('/cases/:id', {
    config: { access: 'read' },
    schema: {
      summary: 'Retrieve a case with its newest scans, the scans its country jumps came from, and its notes',
      operationId: 'getCase',
      tags: ['cases'],
      params: IdParam,
      response: { 200: answer('The case.', CaseDocument), ...errorResponses(401, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      const { row, scans, notes } = await getCase(ctx, request.principal, request.params.id);
      const included = [
        ...scans.map((s) => ({ ...renderVerification(s.row), meta: { in_case: s.inCase, jumped_from: s.jumpedFrom } })),
        ...notes.map(renderNote),
      ];
      return sendDocument(reply, 200, { data: renderCase(row), included });
    },
  });
}
