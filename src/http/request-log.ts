// What each request's log lines say of it: Fastify's own `req` fields, the url cut short. A request head
// may be 40 kB (docs/hardening.md), so a client could otherwise make a log line of that size per request;
// the start of a url is enough to find a request, and its id names it exactly.
import type { FastifyRequest } from 'fastify';

/** The characters of a url a log line keeps. */
export const LOGGED_URL_MAX = 2048;

export function loggedUrl(url: string): string {
  return url.length <= LOGGED_URL_MAX ? url : `${url.slice(0, LOGGED_URL_MAX)}… (${url.length} characters)`;
}

export const requestLogSerializers = {
  req: (request: FastifyRequest) => ({
    method: request.method,
    url: loggedUrl(request.url),
    version: request.headers['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }),
};
