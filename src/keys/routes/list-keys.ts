import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import { sendDocument } from '../../http/jsonapi.js';
import { refuseUnknown } from '../../http/query.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { listKeys } from '../service.js';
import { KeyList } from '../schemas.js';
import { renderKey } from '../serializer.js';

export default function listKeysRoute(app: RouteApp, { db }: Kernel): void {
  app.get('/keys', {
    config: { access: 'admin' },
    schema: {
      summary: "List the team's keys of the same mode (never a secret)",
      operationId: 'listKeys',
      tags: ['keys'],
      response: { 200: answer("The team's keys of this mode.", KeyList), ...errorResponses(400, 401, 406, 429) },
    },
    handler: async (request, reply) => {
      refuseUnknown(request.query as Record<string, unknown>, []);
      return sendDocument(reply, 200, { data: (await listKeys(db.kysely, request.principal)).map((key) => renderKey(key)) });
    },
  });
}
