import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, errorResponses } from '../../http/schemas.js';
import { readResponsesDocument } from '../documents.js';
import { ResponsesBody, WriteDocument } from '../schemas.js';
import { renderWrite } from '../serializer.js';
import { exchange } from '../service.js';

export default function postResponsesRoute(app: FastifyInstance, ctx: AppContext) {
  app.post<{ Params: { id: string } }>('/writer/writes/:id/responses', {
    schema: {
      summary: "The chip's answers to the pending APDUs: the next APDUs, or the end of the write",
      tags: ['writer'],
      params: IdParam,
      body: ResponsesBody,
      response: { 200: WriteDocument, ...errorResponses(400, 401, 404, 406, 409, 415, 429) },
    },
    handler: async (request, reply) => {
      const { responses, removed, abort, roundTrip } = readResponsesDocument(request.body, request.params.id);
      return sendDocument(reply, 200, { data: renderWrite(await exchange(ctx, request.principal, request.params.id, responses, removed, abort, roundTrip)) });
    },
  });
}
