import type { FastifyInstance } from 'fastify';
import { answer } from '../../http/schemas.js';
import type { UsersContext } from '../context.js';
import { PasskeyOptions } from '../auth-schemas.js';
import { relyingParty, signInOptions } from '../passkeys.js';
import { originOf } from './http.js';
import { NO_CREDENTIAL, authSchema } from './schema.js';

export default function passkeySignInOptionsRoute(app: FastifyInstance, ctx: UsersContext): void {
  app.post('/passkeys/sign-in/options', {
    schema: authSchema(
      'passkeySignInOptions',
      'Options to sign in with a passkey: a fresh challenge, no credentials listed',
      NO_CREDENTIAL,
      { 200: answer('Options for navigator.credentials.get()', PasskeyOptions) },
      [415],
    ),
    handler: async (request) => signInOptions(ctx, relyingParty(originOf(ctx, request))),
  });
}
