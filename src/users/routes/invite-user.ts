import { callerOf } from '../../http/auth.js';
import type { UsersContext } from '../context.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { originOf } from '../auth-routes/http.js';
import { readInviteDocument } from '../documents.js';
import { InviteUserBody, UserDocument } from '../schemas.js';
import { renderUser } from '../serializer.js';
import { inviteUser } from '../service.js';

export default function inviteUserRoute(app: RouteApp, ctx: UsersContext): void {
  app.post('/users', {
    config: { access: 'admin', reach: 'team' },
    schema: {
      summary: "Invite a person to the caller's team: the answer carries a one-time link (72 h) to set a password or register a passkey",
      operationId: 'inviteUser',
      tags: ['users'],
      body: InviteUserBody,
      response: {
        201: answer('Invited: the user, with the link in `attributes.link`, shown only here.', UserDocument),
        ...errorResponses(400, 401, 403, 406, 409, 413, 415, 422, 429),
      },
    },
    handler: async (request, reply) => {
      const input = readInviteDocument(request.body);
      const { user, link } = await inviteUser(ctx, callerOf(request), input, originOf(ctx, request), ctx.config.mail ? 'email' : 'answer');
      return sendDocument(reply, 201, { data: renderUser(user, 0, link) });
    },
  });
}
