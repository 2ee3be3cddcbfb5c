import type { FastifyInstance } from 'fastify';
import { answer } from '../../http/schemas.js';
import type { UsersContext } from '../context.js';
import { readPasskeyOptions } from '../auth-documents.js';
import { PasskeyOptions, PasskeyOptionsBody } from '../auth-schemas.js';
import { registrationOptions, relyingParty } from '../passkeys.js';
import { userOfLink } from '../service.js';
import { signedInSession, userOfSession } from '../sessions.js';
import { credentialOf, originOf } from './http.js';
import { OPTIONAL_SESSION_CHANGE, authSchema } from './schema.js';

export default function passkeyRegisterOptionsRoute(app: FastifyInstance, ctx: UsersContext): void {
  app.post('/passkeys/register/options', {
    schema: authSchema(
      'passkeyRegistrationOptions',
      "Options to register a passkey, for a one-time link's account (`token`) or the signed-in user's",
      OPTIONAL_SESSION_CHANGE,
      { 200: answer('Options for navigator.credentials.create()', PasskeyOptions) },
      [400, 401, 403, 415, 422],
      PasskeyOptionsBody,
    ),
    handler: async (request) => {
      const { token } = readPasskeyOptions(request.body);
      const rp = relyingParty(originOf(ctx, request));
      if (token !== undefined) return registrationOptions(ctx, (await userOfLink(ctx.db.kysely, ctx, token)).user, rp);
      const session = await signedInSession(ctx, credentialOf(request));
      return registrationOptions(ctx, await userOfSession(ctx, session), rp);
    },
  });
}
