import type { FastifyInstance } from 'fastify';
import { answer } from '../../http/schemas.js';
import type { UsersContext } from '../context.js';
import { readLink } from '../auth-documents.js';
import { linkAnswer } from '../auth-answers.js';
import { LinkBody, LinkInfo } from '../auth-schemas.js';
import { checkedLink } from '../links.js';
import { throttled } from './http.js';
import { NO_CREDENTIAL, authSchema } from './schema.js';

export default function inspectLinkRoute(app: FastifyInstance, ctx: UsersContext): void {
  // POST, not GET: the token travels in a body, never in a URL a log or a proxy would keep.
  app.post('/links/inspect', {
    schema: authSchema(
      'inspectLink',
      'What a one-time link (an invite or a reset) is for, and whose',
      NO_CREDENTIAL,
      { 200: answer('The account the link is for, and why', LinkInfo) },
      [400, 415, 422],
      LinkBody,
    ),
    handler: async (request, reply) => {
      const { token } = readLink(request.body);
      return linkAnswer(ctx, await throttled(reply, () => checkedLink(ctx, token, request.ip)));
    },
  });
}
