import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { getTagChip } from '../service.js';
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
      return sendDocument(reply, 200, { data: renderChip(await getTagChip(db.kysely, request.principal, request.params.id)) });
    },
  });
}
