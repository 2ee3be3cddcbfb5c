// The one place where an error becomes a response: JSON:API on the platform
// API, `{error}` on the extension API, plain text for 429 everywhere. Domain
// errors name fields relative to the entity (`url`, `events/1`, with the entry's
// index in a batch); the JSON pointer into the request document is made here.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { KeyMaterialError } from '../secrets/index.js';
import { DomainError, type ErrorCode, type FieldProblem } from '../errors.js';
import { STATUS } from './errors.js';
import { JSON_API } from './jsonapi.js';
import { isObject } from '../json.js';

function fromFastify(error: FastifyError): DomainError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new DomainError('UnsupportedMediaType');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DomainError('PayloadTooLarge');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new DomainError('MalformedBody');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new DomainError('InvalidJson');
  }
  if (error instanceof SyntaxError || (error as { type?: string }).type === 'entity.parse.failed') return new DomainError('InvalidJson');
  if (error.validation) return new DomainError(error.validationContext === 'body' ? 'MalformedBody' : 'InvalidQuery');
  if (error.statusCode === 429) return new DomainError('RateLimited');
  const known = Object.entries(STATUS).find(([, status]) => status === error.statusCode);
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500 && known) return new DomainError(known[0] as ErrorCode);
  return null;
}

/** The public extension API's prefix and the headers its every answer carries (errors included). */
export interface ErrorSurfaces {
  extPrefix: string;
  extHeaders: Readonly<Record<string, string>>;
}

/**
 * Where a field sits in the request document: `/data/3/attributes/url` in a batch, `/data/attributes/url`
 * otherwise; `/password` in the flat JSON objects of the console's sign-in (no `data`).
 */
function pointer(field: FieldProblem, batch: boolean, flat: boolean): string {
  if (flat) return `/${field.path}`;
  return field.index !== undefined && batch ? `/data/${field.index}/attributes/${field.path}` : `/data/attributes/${field.path}`;
}

/** The JSON:API `errors` of an error (also the in-process writer's answer, writer/local.ts). */
export function jsonApiErrors(error: DomainError, document: unknown) {
  const status = String(STATUS[error.code]);
  if (error.fields.length === 0) return [{ status, title: error.title, ...(error.detail ? { detail: error.detail } : {}) }];
  // A query parameter is named as such (JSON:API `source.parameter`); other fields sit in the body.
  if (error.code === 'InvalidQuery') return error.fields.map((f) => ({ status, title: error.title, detail: f.detail, source: { parameter: f.path } }));
  const batch = isObject(document) && Array.isArray(document.data);
  const flat = isObject(document) && !('data' in document);
  return error.fields.map((f) => ({ status, title: error.title, detail: f.detail, source: { pointer: pointer(f, batch, flat) } }));
}

export function renderError(request: FastifyRequest, reply: FastifyReply, error: DomainError, surfaces: ErrorSurfaces) {
  const status = STATUS[error.code];
  reply.code(status);
  const ext = request.url.startsWith(surfaces.extPrefix + '/') || request.url === surfaces.extPrefix;
  // Browsers may read the extension API's errors too (CORS, no credentials).
  if (ext) reply.headers(surfaces.extHeaders);
  if (status === 429) {
    return reply.type('text/plain; charset=utf-8').send('Too Many Requests');
  }
  if (ext) {
    // Extension validation errors name every failed field as {field, message} (docs/extension.md#claims).
    const body =
      error.fields.length > 0 ? { error: error.title, details: error.fields.map((f) => ({ field: f.path, message: f.detail })) } : { error: error.title };
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
  }
  const errors = jsonApiErrors(error, request.body);
  // A Buffer: Fastify appends `; charset=utf-8` to a string's type, and replies made before routing
  // (frameworkErrors) skip the onSend hook that takes it off again.
  return reply.type(JSON_API).send(Buffer.from(JSON.stringify({ errors })));
}

/**
 * Paths that name no resource, found before routing: one that is not valid percent-encoded UTF-8
 * (`%ED%A0%80`, `%FF`: FST_ERR_BAD_URL), and one with a path segment longer than the router reads
 * (FST_ERR_MAX_PARAM_LENGTH: no id is that long). The client's mistake, so no error log.
 */
const NO_SUCH_PATH = new Set(['FST_ERR_BAD_URL', 'FST_ERR_MAX_PARAM_LENGTH']);

/**
 * Fastify's `frameworkErrors`: errors raised before routing. A path that names no resource is the
 * 404 any unknown id gets, in the API's error format, before any key is asked for.
 */
export function frameworkErrors(surfaces: ErrorSurfaces) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const unknown = NO_SUCH_PATH.has(error.code);
    if (!unknown) request.log.error({ err: error }, 'framework error');
    // Before routing, so before the hook that echoes it on every other answer.
    reply.header('x-request-id', request.id);
    renderError(request, reply, new DomainError(unknown ? 'RouteNotFound' : 'Internal'), surfaces);
  };
}

const KEY_MATERIAL_DETAIL =
  'the server has no usable key material for this mode: its operator must set TAPPROOF_MASTER_KEY (or TAPPROOF_MASTER_KEY_FILE); the server log says why';

export function installErrorHandler(app: FastifyInstance, surfaces: ErrorSurfaces): void {
  app.setErrorHandler((raw: FastifyError, request, reply) => {
    const error = raw instanceof DomainError ? raw : fromFastify(raw);
    if (error) return renderError(request, reply, error, surfaces);
    // Missing or foreign key material (a value sealed under another master, no
    // production master on PostgreSQL) is the deployment's fault, never the
    // client's and never a verdict on the chip: 503, with the operator's line in the log.
    if (raw instanceof KeyMaterialError) {
      request.log.error({ reason: raw.message }, 'key material unavailable');
      // The variable's name only: the reason itself (check values, paths) is the operator's, in the log.
      return renderError(request, reply, new DomainError('Unavailable', [], undefined, (raw as KeyMaterialError).detail ?? KEY_MATERIAL_DETAIL), surfaces);
    }
    request.log.error({ err: raw }, 'unhandled error');
    return renderError(request, reply, new DomainError('Internal'), surfaces);
  });
  // A path that exists under other methods answers 405 with `Allow` (RFC 9110 §15.5.6),
  // not 404: routes are recorded as they are added, and the router only tells "no match".
  const routes: { pattern: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    // A catch-all (the extension API's CORS preflight, OPTIONS /ext/*) says nothing about the methods of a
    // concrete path: an unknown path under it stays 404.
    if (route.url.includes('*')) return;
    const source =
      '^' +
      route.url
        .split('/')
        .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/') +
      '/?$';
    let entry = routes.find((r) => r.pattern.source === source);
    if (!entry) routes.push((entry = { pattern: new RegExp(source), methods: new Set() }));
    for (const method of [route.method].flat()) entry.methods.add(method);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => [...r.methods]));
    if (allowed.size > 0 && !allowed.has(request.method)) {
      reply.header('allow', [...allowed].sort().join(', '));
      return renderError(request, reply, new DomainError('MethodNotAllowed'), surfaces);
    }
    return renderError(request, reply, new DomainError('RouteNotFound'), surfaces);
  });
}
