// JSON:API machinery shared by every platform route: media type negotiation,
// body parsing, and the document shapes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BoundedCache } from '../bounded-cache.js';
import { DomainError } from '../errors.js';

export const JSON_API = 'application/vnd.api+json';

export interface ResourceObject<A> {
  type: string;
  id: string;
  attributes: A;
}

/** Whether an Accept header admits `application/vnd.api+json` (or a wildcard that covers it). */
function acceptsJsonApi(accept: string): boolean {
  return accepts(accept, JSON_API);
}

/**
 * Whether an Accept header admits `type`, itself or by a wildcard (`*\/*`, `text/*`); a range with q=0 refuses.
 * JSON:API: a JSON:API media type with parameters other than ext/profile is not acceptable.
 */
function accepts(accept: string, type: string): boolean {
  return accept.split(',').some((part) => {
    const [range, ...params] = part
      .trim()
      .split(';')
      .map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) === 0) return false;
    if (range === type) return type !== JSON_API || params.every((p) => p.startsWith('q=') || p.startsWith('ext=') || p.startsWith('profile='));
    return range === '*/*' || range === `${type.split('/')[0]}/*`;
  });
}

/** The media type of a route that answers something other than JSON:API on success (`config.produces`): its errors stay JSON:API. */
export const CSV = 'text/csv';

declare module 'fastify' {
  interface FastifyContextConfig {
    produces?: typeof CSV;
  }
}

/**
 * The request media types a body may carry: JSON:API's own, without parameters, and plain
 * `application/json` (JSON:API allows a server to accept it), which stock generated clients send.
 * Answers stay JSON:API either way (docs/openapi.md, "Media types").
 */
function acceptedBodyType(type: string): boolean {
  const [range, ...params] = type.split(';').map((s) => s.trim().toLowerCase());
  if (range === JSON_API) return params.length === 0;
  return range === 'application/json' && params.every((p) => p.replace(/\s+/g, '') === 'charset=utf-8');
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}

/** Registers the JSON:API parsers and the negotiation hook on a route scope. */
export function installJsonApi(app: FastifyInstance): void {
  const parse = (_req: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
    // `Content-Length: 0` with our media type (Node's fetch sends it on a body-less DELETE) is
    // no body at all, exactly as without the header; routes that need one say 400 themselves.
    if (body.length === 0) return done(null, undefined);
    try {
      done(null, JSON.parse(body.toString()));
    } catch {
      done(new DomainError('InvalidJson'));
    }
  };
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_API, { parseAs: 'string' }, parse);
  // A request with a body but no Content-Type is tolerated (docs/api.md#requests-and-errors) and read as JSON;
  // any other media type was already refused by the hook below.
  app.addContentTypeParser('*', { parseAs: 'string' }, parse);

  // Clients send a handful of distinct Accept and Content-Type headers, so each decision is kept by its
  // header text instead of parsing the header on every request (bounded: any header may come).
  const acceptable = new BoundedCache<string, boolean>(256);
  const acceptableCsv = new BoundedCache<string, boolean>(256);
  const bodyTypes = new BoundedCache<string, boolean>(256);
  const decide = (cache: BoundedCache<string, boolean>, text: string, judge: (text: string) => boolean): boolean => {
    let yes = cache.get(text);
    if (yes === undefined) {
      yes = judge(text);
      cache.set(text, yes);
    }
    return yes;
  };
  // Callback-style hooks: these run on every request and need no promise.
  app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    const accept = request.headers.accept;
    if (accept !== undefined && accept !== '') {
      const produces = request.routeOptions.config?.produces;
      if (produces === undefined ? !decide(acceptable, accept, acceptsJsonApi) : !decide(acceptableCsv, accept, (a) => accepts(a, produces)))
        return done(
          produces === undefined ? new DomainError('NotAcceptable') : new DomainError('NotAcceptable', [], undefined, `this request answers ${produces}`),
        );
    }
    const type = request.headers['content-type'];
    if (type !== undefined && hasBody(request) && !decide(bodyTypes, type, acceptedBodyType)) return done(new DomainError('UnsupportedMediaType'));
    done();
  });
}

/**
 * JSON:API forbids media type parameters on responses; Fastify appends
 * `charset=utf-8` to JSON-like types, so the header is restored last.
 */
export function installExactMediaType(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith(JSON_API) && type !== JSON_API) reply.header('content-type', JSON_API);
    done(null, payload);
  });
}

export function sendDocument(reply: FastifyReply, status: number, document: unknown) {
  return reply.code(status).type(JSON_API).send(document);
}
