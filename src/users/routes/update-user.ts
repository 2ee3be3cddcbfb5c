import { callerOf } from '../../http/auth.js';
import type { UsersContext } from '../context.js';
import type { RouteApp } from '../../http/route-app.js';
import { DomainError } from '../../errors.js';
import { sendDocument } from '../../http/jsonapi.js';
import { IdParam, answer, errorResponses } from '../../http/schemas.js';
import { isId } from '../../ids.js';
import { readUpdateDocument } from '../documents.js';
import { UpdateUserBody, UserDocument } from '../schemas.js';
import { renderUser } from '../serializer.js';
import { updateUser, withPasskeys } from '../service.js';

export default function updateUserRoute(app: RouteApp, ctx: UsersContext): void {
  app.patch('/users/:id', {
    config: { access: 'admin', reach: 'team' },
    schema: {
      summary: "Change a user's role, or disable or enable them; either ends the user's sessions, so that it takes effect at once",
      operationId: 'updateUser',
      tags: ['users'],
      params: IdParam,
      body: UpdateUserBody,
      response: { 200: answer('The user as changed.', UserDocument), ...errorResponses(400, 401, 403, 404, 406, 413, 415, 422, 429) },
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      if (!isId('usr', id)) throw new DomainError('NotFound');
      const change = readUpdateDocument(request.body, id);
      const [listed] = await withPasskeys(ctx.db.kysely, [await updateUser(ctx, callerOf(request), id, change)]);
      return sendDocument(reply, 200, { data: renderUser(listed!.user, listed!.passkeys) });
    },
  });
}
