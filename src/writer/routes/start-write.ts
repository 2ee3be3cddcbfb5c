import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { sendDocument } from '../../http/jsonapi.js';
import { errorResponses } from '../../http/schemas.js';
import { readStartDocument } from '../documents.js';
import { StartWriteBody, WriteDocument } from '../schemas.js';
import { renderWrite } from '../serializer.js';
import { startTagWrite } from '../service.js';

export default function startWriteRoute(app: FastifyInstance, ctx: AppContext) {
  app.post('/writer/writes', {
    schema: {
      summary: 'Start writing a created tag onto a chip: the first APDUs (or a failure before any APDU)',
      tags: ['writer'],
      body: StartWriteBody,
      response: { 201: WriteDocument, ...errorResponses(400, 401, 404, 406, 409, 415, 429) },
    },
    handler: async (request, reply) => sendDocument(reply, 201, { data: renderWrite(await startTagWrite(ctx, request.principal, readStartDocument(request.body))) }),
  });
}
