import { callerOf } from '../../http/auth.js';
import type { UsersContext } from '../context.js';
import type { RouteApp } from '../../http/route-app.js';
import { DomainError } from '../../errors.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { isId } from '../../ids.js';
import { originOf } from '../auth-routes/http.js';
import { UserDocument } from '../schemas.js';
import { renderUser } from '../serializer.js';
import { resetUser } from '../service.js';

export default function resetUserRoute(app: RouteApp, ctx: UsersContext): void {
  app.post('/users/:id/reset', {
    config: { access: 'admin', reach: 'person' },
    schema: {
      summary: 'Reset a user who lost their password or passkey: both are removed, every session ends, and a new one-time link (72 h) is made',
      operationId: 'resetUser',
      tags: ['users'],
      params: IdParam,
      response: { 200: answer('The user, with the new link in `attributes.link`, shown only here.', UserDocument), ...errorResponses(401, 403, 404, 406, 429) },
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      if (!isId('usr', id)) throw new DomainError('NotFound');
      const { user, link } = await resetUser(ctx, callerOf(request), id, originOf(ctx, request), ctx.config.mail ? 'email' : 'answer');
      return sendDocument(reply, 200, { data: renderUser(user, 0, link) });
    },
  });
}
