import type { FastifyInstance } from 'fastify';
import { answer } from '../../http/schemas.js';
import type { UsersContext } from '../context.js';
import { readMode } from '../auth-documents.js';
import { signedInAnswer } from '../auth-answers.js';
import { ModeBody, SignedIn } from '../auth-schemas.js';
import { signedInSession, switchMode } from '../sessions.js';
import { credentialOf } from './http.js';
import { SESSION_CHANGE, authSchema } from './schema.js';

export default function setModeRoute(app: FastifyInstance, ctx: UsersContext): void {
  app.post('/mode', {
    schema: authSchema(
      'setSessionMode',
      'Switches the world (sandbox or production) the session acts in',
      SESSION_CHANGE,
      { 200: answer('The session, now acting in that world', SignedIn) },
      [400, 401, 403, 415, 422],
      ModeBody,
    ),
    handler: async (request) => {
      const session = await signedInSession(ctx, credentialOf(request));
      return signedInAnswer(ctx, await switchMode(ctx, session, readMode(request.body)));
    },
  });
}
