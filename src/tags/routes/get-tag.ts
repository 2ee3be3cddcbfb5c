import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, errorResponses } from '../../http/schemas.js';
import { TagDocument } from '../schemas.js';
import { renderTag } from '../serializer.js';
import { getTag } from '../service.js';

export default function getTagRoute(app: FastifyInstance, { db }: AppContext) {
  app.get<{ Params: { id: string } }>('/tags/:id', {
    schema: { summary: 'Retrieve a tag', tags: ['tags'], params: IdParam, response: { 200: TagDocument, ...errorResponses(401, 404, 406, 429) } },
    handler: async (request, reply) => sendDocument(reply, 200, { data: renderTag(await getTag(db, request.principal, request.params.id)) }),
  });
}
