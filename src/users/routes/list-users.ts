import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import { wholeListRoute } from '../../http/whole-list.js';
import { listTeamUsers } from '../service.js';
import { UserList } from '../schemas.js';
import { renderUser } from '../serializer.js';

export default function listUsersRoute(app: RouteApp, { db }: Kernel): void {
  wholeListRoute(app, {
    path: '/users',
    access: 'admin',
    reach: 'team',
    summary: "List the team's console users (both modes: a user is the team's), never a password or a link",
    operationId: 'listUsers',
    tag: 'users',
    list: UserList,
    holds: "The team's users, by email.",
    errors: [400, 401, 403, 406, 429],
    data: async (principal) => (await listTeamUsers(db.kysely, principal.teamId)).map(({ user, passkeys }) => renderUser(user, passkeys)),
  });
}
