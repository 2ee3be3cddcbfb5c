import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import { DomainError } from '../../errors.js';
import { sendDocument } from '../../http/jsonapi.js';
import { refuseUnknown } from '../../http/query.js';
import { answer, errorResponses } from '../../http/schemas.js';
import * as teamsRepo from '../repository.js';
import { TeamDocument } from '../schemas.js';
import { renderTeam } from '../serializer.js';

export default function getCurrentTeamRoute(app: RouteApp, { db }: Kernel): void {
  app.get('/teams/current', {
    schema: {
      summary: 'Retrieve the team of the key presented',
      operationId: 'getCurrentTeam',
      tags: ['teams'],
      response: { 200: answer('The team of the key.', TeamDocument), ...errorResponses(400, 401, 406, 429) },
    },
    handler: async (request, reply) => {
      refuseUnknown(request.query as Record<string, unknown>, []);
      const team = await teamsRepo.findTeam(db.kysely, request.principal.teamId);
      // A valid key's team exists (keys are never moved); a missing one is not the client's fault.
      if (!team) throw new DomainError('Internal');
      return sendDocument(reply, 200, { data: renderTeam(team) });
    },
  });
}
