import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { DomainError } from '../../errors.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, errorResponses } from '../../http/schemas.js';
import { isId } from '../../ids.js';
import { findKeyInWorld } from '../repository.js';
import { KeyDocument } from '../schemas.js';
import { renderKey } from '../serializer.js';

export default function getKeyRoute(app: FastifyInstance, { db }: AppContext): void {
  app.get<{ Params: { id: string } }>('/keys/:id', {
    schema: { summary: 'Retrieve a key of the same team and mode (never its secret)', tags: ['keys'], params: IdParam, response: { 200: KeyDocument, ...errorResponses(401, 404, 406, 429) } },
    handler: async (request, reply) => {
      const { teamId, mode } = request.principal;
      const key = isId('key', request.params.id) ? await findKeyInWorld(db.kysely, request.params.id, teamId, mode) : undefined;
      if (!key) throw new DomainError('NotFound');
      return sendDocument(reply, 200, { data: renderKey(key) });
    },
  });
}
