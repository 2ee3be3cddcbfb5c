import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import { wholeListRoute } from '../../http/whole-list.js';
import { listKeys } from '../service.js';
import { KeyList } from '../schemas.js';
import { renderKey } from '../serializer.js';

export default function listKeysRoute(app: RouteApp, { db }: Kernel): void {
  wholeListRoute(app, {
    path: '/keys',
    access: 'admin',
    summary: "List the team's keys of the same mode (never a secret)",
    operationId: 'listKeys',
    tag: 'keys',
    list: KeyList,
    holds: "The team's keys of this mode.",
    errors: [400, 401, 406, 429],
    data: async (principal) => (await listKeys(db.kysely, principal)).map((key) => renderKey(key)),
  });
}
