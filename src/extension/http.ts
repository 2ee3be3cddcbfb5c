// What every extension route shares (docs/extension.md): plain JSON bodies
// (application/json, or no Content-Type), CORS for browsers without
// credentials, and a small body cap.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../errors.js';

/** The largest extension body: a claim with a 2048-character URL and a 280-character note in 4-byte UTF-8 is under 10 kB. */
export const EXT_BODY_LIMIT = 16 * 1024;

/**
 * What every extension answer carries, errors and 429 included: any page may read it (no credential
 * is taken), and its script may read the X-Request-Id it can quote to support. The rate limiter
 * sends no headers of its own, so there are none to expose.
 */
export const EXT_ANSWER_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'x-request-id',
} as const;

const CORS = {
  ...EXT_ANSWER_HEADERS,
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type, x-request-id',
  'access-control-max-age': '600',
} as const;

export function installExtensionHttp(app: FastifyInstance): void {
  const parse = (_req: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
    const text = body.toString();
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new DomainError('ExtValidationFailed', [{ path: 'body', detail: 'is not valid JSON' }]));
    }
  };
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: EXT_BODY_LIMIT }, parse);
  // No Content-Type: read as JSON; any other media type is refused.
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: EXT_BODY_LIMIT }, (request, body, done) => {
    if (request.headers['content-type'] !== undefined) return done(new DomainError('ExtUnsupportedMediaType'));
    parse(request, body, done);
  });
  app.addHook('onRequest', (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    reply.headers(EXT_ANSWER_HEADERS);
    done();
  });
  // Preflight: any path of the scope, answered before the route exists or not.
  app.options('/*', { schema: { hide: true } }, async (_request, reply) => reply.code(204).headers(CORS).send());
}
