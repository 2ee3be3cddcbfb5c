import type { Kernel } from '../../kernel.js';
import { DomainError } from '../../errors.js';
import { isId } from '../../ids.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import * as chipsRepo from '../repository.js';
import { ChipDocument } from '../schemas.js';
import { renderChip } from '../serializer.js';

export default function getTagChipRoute(app: RouteApp, { db }: Kernel): void {
  app.get('/tags/:id/chip', {
    config: { access: 'read' },
    schema: {
      summary: "Retrieve a tag's chip",
      description:
        'The chip bound to the tag when it was written, imported or emulated: UID, cryptography, write generation, last counter. Never a key. 404 while the tag is not configured.',
      operationId: 'getTagChip',
      tags: ['tags'],
      params: IdParam,
      response: { 200: answer("The tag's chip.", ChipDocument), ...errorResponses(401, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      // A string that is not a tag id names nothing (and never reaches the engine: PostgreSQL refuses NUL).
      const id = request.params.id;
      const found = isId('tag', id) ? await chipsRepo.findTagChip(db.kysely, request.principal, id) : undefined;
      if (!found) throw new DomainError('NotFound');
      return sendDocument(reply, 200, { data: renderChip(found.chip) });
    },
  });
}
