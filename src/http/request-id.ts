// The id every log line of a request carries. A client's X-Request-Id is kept
// only when it is 1 to 128 printable ASCII characters without spaces: anything
// else (8,000 characters, newlines, escapes) would be written verbatim into the
// logs, so the server makes its own id instead.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_MAX = 128;
const ACCEPTABLE = new RegExp(`^[\\x21-\\x7e]{1,${REQUEST_ID_MAX}}$`);

export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && ACCEPTABLE.test(given) ? given : randomUUID();
}
