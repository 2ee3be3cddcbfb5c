import { callerOf } from '../../http/auth.js';
import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { readNoteDocument } from '../documents.js';
import { CaseNoteDocument, CreateCaseNoteBody } from '../schemas.js';
import { renderNote } from '../serializer.js';
import { addNote } from '../service.js';

export default function createCaseNoteRoute(app: RouteApp, ctx: Kernel) {
  app.post('/cases/:id/notes', {
    config: { access: 'write' },
    schema: {
      summary: "Add a note to a case's thread (notes are never changed)",
      operationId: 'createCaseNote',
      tags: ['cases'],
      params: IdParam,
      body: CreateCaseNoteBody,
      response: { 201: answer('The note.', CaseNoteDocument), ...errorResponses(400, 401, 404, 406, 413, 415, 422, 429) },
    },
    handler: async (request, reply) => {
      const attributes = readNoteDocument(request.body);
      return sendDocument(reply, 201, { data: renderNote(await addNote(ctx, callerOf(request), request.params.id, attributes)) });
    },
  });
}
