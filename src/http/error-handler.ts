// The one place where an error becomes a response: JSON:API on the platform
// API, `{error}` on the extension API, plain text for 429 everywhere.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ErrorCodes, type ErrorCode } from './errors.js';
import { JSON_API } from './jsonapi.js';

function fromFastify(error: FastifyError): ApiError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UnsupportedMediaType');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PayloadTooLarge');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('MalformedBody');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('InvalidJson');
  }
  if (error instanceof SyntaxError || (error as { type?: string }).type === 'entity.parse.failed') return new ApiError('InvalidJson');
  if (error.validation) return new ApiError(error.validationContext === 'body' ? 'MalformedBody' : 'InvalidQuery');
  if (error.statusCode === 429) return new ApiError('RateLimited');
  const known = Object.entries(ErrorCodes).find(([, v]) => v.status === error.statusCode);
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500 && known) return new ApiError(known[0] as ErrorCode);
  return null;
}

export interface ErrorSurfaces {
  extPrefix: string;
}

export function renderError(request: FastifyRequest, reply: FastifyReply, error: ApiError, surfaces: ErrorSurfaces) {
  reply.code(error.status);
  if (error.status === 429) {
    return reply.type('text/plain; charset=utf-8').send('Too Many Requests');
  }
  if (request.url.startsWith(surfaces.extPrefix + '/') || request.url === surfaces.extPrefix) {
    return reply.type('application/json; charset=utf-8').send(JSON.stringify({ error: error.title }));
  }
  const errors =
    error.fields.length > 0
      ? error.fields.map((f) => ({ status: String(error.status), title: error.title, detail: f.detail, source: { pointer: f.pointer } }))
      : [{ status: String(error.status), title: error.title }];
  return reply.type(JSON_API).send(JSON.stringify({ errors }));
}

export function installErrorHandler(app: FastifyInstance, surfaces: ErrorSurfaces): void {
  app.setErrorHandler((raw: FastifyError, request, reply) => {
    const error = raw instanceof ApiError ? raw : fromFastify(raw);
    if (error) return renderError(request, reply, error, surfaces);
    request.log.error({ err: raw }, 'unhandled error');
    return renderError(request, reply, new ApiError('Internal'), surfaces);
  });
  app.setNotFoundHandler((request, reply) => renderError(request, reply, new ApiError('RouteNotFound'), surfaces));
}
