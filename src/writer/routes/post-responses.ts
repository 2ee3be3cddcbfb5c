import { callerOf } from '../../http/auth.js';
import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { readResponsesDocument } from '../documents.js';
import { ResponsesBody, WriteDocument } from '../schemas.js';
import { renderWrite } from '../serializer.js';
import { exchange } from '../service.js';

export default function postResponsesRoute(app: RouteApp, ctx: Kernel & MastersState) {
  app.post('/writer/writes/:id/responses', {
    config: { access: 'write' },
    schema: {
      summary: "The chip's answers to the pending APDUs: the next APDUs, or the end of the write",
      operationId: 'createWriteResponses',
      tags: ['writer'],
      params: IdParam,
      body: ResponsesBody,
      response: {
        200: answer('The write, advanced by the chip’s responses: the next APDUs or its outcome.', WriteDocument),
        ...errorResponses(400, 401, 404, 406, 409, 415, 429),
      },
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      return sendDocument(reply, 200, { data: renderWrite(await exchange(ctx, callerOf(request), { id, ...readResponsesDocument(request.body, id) })) });
    },
  });
}
