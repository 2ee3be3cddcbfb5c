import { callerOf } from '../../http/auth.js';
import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { readCreateDocument } from '../documents.js';
import { CreateKeyBody, KeyDocument } from '../schemas.js';
import { renderKey } from '../serializer.js';
import { issueKey } from '../service.js';

export default function createKeyRoute(app: RouteApp, { db, clock }: Kernel): void {
  app.post('/keys', {
    config: { access: 'admin' },
    schema: {
      summary: "Create a key of the caller's team and mode (its text is shown only in this response)",
      operationId: 'createKey',
      tags: ['keys'],
      body: CreateKeyBody,
      response: {
        201: answer('Created: the key with its text in `attributes.key`, shown only here.', KeyDocument),
        ...errorResponses(400, 401, 406, 413, 415, 422, 429),
      },
    },
    handler: async (request, reply) => {
      const options = readCreateDocument(request.body, { now: clock.nowMicros() });
      const made = await issueKey(db, callerOf(request), clock, options);
      return sendDocument(reply, 201, { data: renderKey(made.row, made.key) });
    },
  });
}
