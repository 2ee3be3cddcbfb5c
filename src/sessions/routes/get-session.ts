import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, errorResponses } from '../../http/schemas.js';
import { SessionDocument } from '../schemas.js';
import { renderSession } from '../serializer.js';
import { getSession } from '../service.js';

export default function getSessionRoute(app: FastifyInstance, { db, clock }: AppContext): void {
  app.get<{ Params: { id: string } }>('/sessions/:id', {
    schema: { summary: 'Retrieve a session', tags: ['sessions'], params: IdParam, response: { 200: SessionDocument, ...errorResponses(401, 404, 406, 429) } },
    handler: async (request, reply) => {
      const { row, verificationIds } = await getSession(db, request.principal, request.params.id);
      return sendDocument(reply, 200, { data: renderSession(row, verificationIds, clock.nowMicros()) });
    },
  });
}
