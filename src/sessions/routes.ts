import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { sendDocument } from '../http/jsonapi.js';
import { IdParam, Timestamp, errorResponses, resourceOf } from '../http/schemas.js';
import { renderSession } from './serializer.js';
import { getSession } from './service.js';

export const SessionDocument = Type.Object({
  data: resourceOf(
    'sessions',
    Type.Object({
      status: Type.Union([Type.Literal('open'), Type.Literal('completed'), Type.Literal('expired')]),
      tag_id: Type.String(),
      opened_at: Timestamp,
      expires_at: Timestamp,
      verification_ids: Type.Array(Type.String(), { description: 'The genuine scans in the session, oldest first' }),
    }),
    'Prefix ses_',
  ),
});

export function sessionRoutes(app: FastifyInstance, { db, clock }: AppContext): void {
  app.get<{ Params: { id: string } }>('/sessions/:id', {
    schema: { summary: 'Retrieve a session', tags: ['sessions'], params: IdParam, response: { 200: SessionDocument, ...errorResponses(401, 404, 406, 429) } },
    handler: async (request, reply) => {
      const { row, verificationIds } = await getSession(db, request.principal, request.params.id);
      return sendDocument(reply, 200, { data: renderSession(row, verificationIds, clock.nowMicros()) });
    },
  });
}
