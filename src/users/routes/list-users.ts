import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import { sendDocument } from '../../http/jsonapi.js';
import { refuseUnknown } from '../../http/query.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { listTeamUsers } from '../service.js';
import { UserList } from '../schemas.js';
import { renderUser } from '../serializer.js';

export default function listUsersRoute(app: RouteApp, { db }: Kernel): void {
  app.get('/users', {
    config: { access: 'admin', reach: 'team' },
    schema: {
      summary: "List the team's console users (both modes: a user is the team's), never a password or a link",
      operationId: 'listUsers',
      tags: ['users'],
      response: { 200: answer("The team's users, by email.", UserList), ...errorResponses(400, 401, 403, 406, 429) },
    },
    handler: async (request, reply) => {
      refuseUnknown(request.query as Record<string, unknown>, []);
      const users = await listTeamUsers(db.kysely, request.principal.teamId);
      return sendDocument(reply, 200, { data: users.map(({ user, passkeys }) => renderUser(user, passkeys)) });
    },
  });
}
