import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { getKey } from '../service.js';
import { KeyDocument } from '../schemas.js';
import { renderKey } from '../serializer.js';

export default function getKeyRoute(app: RouteApp, { db }: Kernel): void {
  app.get('/keys/:id', {
    config: { access: 'admin' },
    schema: {
      summary: 'Retrieve a key of the same team and mode (never its secret)',
      operationId: 'getKey',
      tags: ['keys'],
      params: IdParam,
      response: { 200: answer('The key, without its secret.', KeyDocument), ...errorResponses(401, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      const key = await getKey(db.kysely, request.principal, request.params.id);
      return sendDocument(reply, 200, { data: renderKey(key) });
    },
  });
}
