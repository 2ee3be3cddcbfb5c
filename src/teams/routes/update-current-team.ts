import { callerOf } from '../../http/auth.js';
import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import type { SignalsState } from '../../signals/index.js';
import { sendDocument } from '../../http/jsonapi.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { TeamDocument, UpdateTeamBody } from '../schemas.js';
import { renderTeam } from '../serializer.js';
import { updateCurrentTeam } from '../service.js';
import { readUpdateDocument } from '../documents.js';

export default function updateCurrentTeamRoute(app: RouteApp, ctx: Kernel & SignalsState): void {
  app.patch('/teams/current', {
    config: { access: 'write' },
    schema: {
      summary: "Change the signal thresholds of the key's team and mode",
      operationId: 'updateCurrentTeam',
      tags: ['teams'],
      body: UpdateTeamBody,
      response: {
        200: answer('The team, with the thresholds now in force (this server at once, every other within 5 seconds).', TeamDocument),
        ...errorResponses(400, 401, 406, 413, 415, 422, 429),
      },
    },
    handler: async (request, reply) => {
      const attributes = readUpdateDocument(request.body, request.principal.teamId);
      const { team, thresholds } = await updateCurrentTeam(ctx, callerOf(request), attributes);
      return sendDocument(reply, 200, { data: renderTeam(team, thresholds) });
    },
  });
}
