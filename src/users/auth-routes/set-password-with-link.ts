import type { FastifyInstance } from 'fastify';
import { answer } from '../../http/schemas.js';
import type { UsersContext } from '../context.js';
import { readLinkPassword } from '../auth-documents.js';
import { signedInAnswer } from '../auth-answers.js';
import { LinkPasswordBody, SignedIn } from '../auth-schemas.js';
import { redeemWithPassword } from '../links.js';
import { setSessionCookie, throttled, visitorOf } from './http.js';
import { NO_CREDENTIAL, authSchema } from './schema.js';

export default function setPasswordWithLinkRoute(app: FastifyInstance, ctx: UsersContext): void {
  app.post('/links/password', {
    schema: authSchema(
      'setPasswordWithLink',
      'Redeems a one-time link by setting the password: the link is spent and the answer sets the session cookie',
      NO_CREDENTIAL,
      { 200: answer('The password is set and the session cookie too', SignedIn) },
      [400, 415, 422],
      LinkPasswordBody,
    ),
    handler: async (request, reply) => {
      const { token, password } = readLinkPassword(request.body);
      const opened = await throttled(reply, () => redeemWithPassword(ctx, token, password, visitorOf(request)));
      setSessionCookie(request, reply, opened);
      return signedInAnswer(ctx, opened.session);
    },
  });
}
