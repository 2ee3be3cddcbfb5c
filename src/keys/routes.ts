import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { DomainError } from '../errors.js';
import { sendDocument } from '../http/jsonapi.js';
import { IdParam, Timestamp, errorResponses, resourceOf } from '../http/schemas.js';
import { isId } from '../ids.js';
import { isoMicros, isoOrNull } from '../time.js';
import { findKeyInWorld } from './repository.js';

const KeyDocument = Type.Object({
  data: resourceOf(
    'keys',
    Type.Object({
      team_id: Type.String(),
      mode: Type.Union([Type.Literal('sandbox'), Type.Literal('production')]),
      created_at: Timestamp,
      revoked_at: Type.Union([Timestamp, Type.Null()]),
    }),
    'key_…',
  ),
});

export function keyRoutes(app: FastifyInstance, { db }: AppContext): void {
  app.get<{ Params: { id: string } }>('/keys/:id', {
    schema: { summary: 'Retrieve a key of the same team and mode (never its secret)', tags: ['keys'], params: IdParam, response: { 200: KeyDocument, ...errorResponses(401, 404, 406, 429) } },
    handler: async (request, reply) => {
      const { teamId, mode } = request.principal;
      const key = isId('key', request.params.id) ? await findKeyInWorld(db.kysely, request.params.id, teamId, mode) : undefined;
      if (!key) throw new DomainError('NotFound');
      return sendDocument(reply, 200, {
        data: { type: 'keys', id: key.id, attributes: { team_id: key.team_id, mode: key.mode, created_at: isoMicros(key.created_at), revoked_at: isoOrNull(key.revoked_at) } },
      });
    },
  });
}
