import { callerOf } from '../../http/auth.js';
import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { readUpdateDocument } from '../documents.js';
import { Case, UpdateCaseBody } from '../schemas.js';
import { renderCase } from '../serializer.js';
import { updateCase } from '../service.js';
import { Type } from '@sinclair/typebox';

export default function updateCaseRoute(app: RouteApp, ctx: Kernel) {
  app.patch('/cases/:id', {
    config: { access: 'write' },
    schema: {
      summary: 'Triage a case: its state, assignee and resolution',
      operationId: 'updateCase',
      tags: ['cases'],
      params: IdParam,
      body: UpdateCaseBody,
      response: { 200: answer('The case as it is now.', Type.Object({ data: Case })), ...errorResponses(400, 401, 404, 406, 413, 415, 422, 429) },
    },
    handler: async (request, reply) => {
      const attributes = readUpdateDocument(request.body, request.params.id);
      return sendDocument(reply, 200, { data: renderCase(await updateCase(ctx, callerOf(request), request.params.id, attributes)) });
    },
  });
}
