import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { DomainError } from '../../errors.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { TeamDocument } from '../schemas.js';
import { renderTeam } from '../serializer.js';
import { currentTeam } from '../service.js';

export default function getTeamRoute(app: RouteApp, { db }: Kernel): void {
  app.get('/teams/:id', {
    config: { access: 'read' },
    schema: {
      summary: "Retrieve the key's own team",
      operationId: 'getTeam',
      tags: ['teams'],
      params: IdParam,
      response: { 200: answer('The team.', TeamDocument), ...errorResponses(401, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      // A key sees its own team only: parents and subteams are other teams (404).
      if (request.params.id !== request.principal.teamId) throw new DomainError('NotFound');
      const { team, thresholds } = await currentTeam(db.kysely, request.principal);
      return sendDocument(reply, 200, { data: renderTeam(team, thresholds) });
    },
  });
}
