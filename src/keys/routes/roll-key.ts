import { callerOf } from '../../http/auth.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { DomainError } from '../../errors.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { isId } from '../../ids.js';
import type { KeysContext } from '../context.js';
import { readRollDocument } from '../documents.js';
import { KeyDocument, RollKeyBody } from '../schemas.js';
import { renderKey } from '../serializer.js';
import { roll } from '../service.js';

export default function rollKeyRoute(app: RouteApp, ctx: KeysContext): void {
  app.post('/keys/:id/roll', {
    config: { access: 'admin' },
    schema: {
      summary: 'Roll a key: a new key of the same role and name; the old one ends after `expires_in` seconds',
      operationId: 'rollKey',
      tags: ['keys'],
      params: IdParam,
      body: RollKeyBody,
      response: {
        201: answer('Created: the new key with its text in `attributes.key`, shown only here.', KeyDocument),
        ...errorResponses(400, 401, 404, 406, 409, 413, 415, 422, 429),
      },
    },
    handler: async (request, reply) => {
      const overlap = readRollDocument(request.body, { now: ctx.clock.nowMicros() });
      if (!isId('key', request.params.id)) throw new DomainError('NotFound');
      const made = await roll(ctx, callerOf(request), request.params.id, overlap);
      return sendDocument(reply, 201, { data: renderKey(made.row, made.key) });
    },
  });
}
