import { callerOf } from '../../http/auth.js';
import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { readStartDocument } from '../documents.js';
import { StartWriteBody, WriteDocument } from '../schemas.js';
import { renderWrite } from '../serializer.js';
import { startTagWrite } from '../service.js';

export default function startWriteRoute(app: RouteApp, ctx: Kernel & MastersState) {
  app.post('/writer/writes', {
    config: { access: 'write' },
    schema: {
      summary: "Start writing a created tag onto a chip, or rekeying a configured tag's chip: the first APDUs (or a failure before any APDU)",
      operationId: 'createWrite',
      tags: ['writer'],
      body: StartWriteBody,
      response: {
        201: answer('Created: the write and the first APDUs to send to the chip.', WriteDocument),
        ...errorResponses(400, 401, 404, 406, 409, 415, 429),
      },
    },
    handler: async (request, reply) => {
      const { tagId, operation } = readStartDocument(request.body);
      return sendDocument(reply, 201, { data: renderWrite(await startTagWrite(ctx, callerOf(request), tagId, operation)) });
    },
  });
}
