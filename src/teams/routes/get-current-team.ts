import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import { sendDocument } from '../../http/jsonapi.js';
import { refuseUnknown } from '../../http/query.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { TeamDocument } from '../schemas.js';
import { renderTeam } from '../serializer.js';
import { currentTeam } from '../service.js';

export default function getCurrentTeamRoute(app: RouteApp, { db }: Kernel): void {
  app.get('/teams/current', {
    config: { access: 'read' },
    schema: {
      summary: 'Retrieve the team of the key presented',
      operationId: 'getCurrentTeam',
      tags: ['teams'],
      response: { 200: answer('The team of the key, with the signal thresholds of its mode.', TeamDocument), ...errorResponses(400, 401, 406, 429) },
    },
    handler: async (request, reply) => {
      refuseUnknown(request.query as Record<string, unknown>, []);
      const { team, thresholds } = await currentTeam(db.kysely, request.principal);
      return sendDocument(reply, 200, { data: renderTeam(team, thresholds) });
    },
  });
}
