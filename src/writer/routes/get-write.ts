import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, errorResponses } from '../../http/schemas.js';
import { WriteDocument } from '../schemas.js';
import { renderWrite } from '../serializer.js';
import { getWrite } from '../service.js';

export default function getWriteRoute(app: FastifyInstance, ctx: AppContext) {
  app.get<{ Params: { id: string } }>('/writer/writes/:id', {
    schema: { summary: 'Retrieve a write', tags: ['writer'], params: IdParam, response: { 200: WriteDocument, ...errorResponses(401, 404, 406, 429) } },
    handler: async (request, reply) => sendDocument(reply, 200, { data: renderWrite(await getWrite(ctx, request.principal, request.params.id)) }),
  });
}
