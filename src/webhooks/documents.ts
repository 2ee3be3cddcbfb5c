// Reading the JSON:API request documents of the webhook routes: shape problems
// are 400, value problems are left to the service (422 naming the fields).
import { DomainError } from '../errors.js';
import { isObject, type Json } from '../json.js';

function resource(body: unknown): Json {
  if (!isObject(body) || !isObject(body.data) || body.data.type !== 'webhooks' || !isObject(body.data.attributes)) throw new DomainError('MalformedBody');
  return body.data;
}

/** POST /webhooks */
export function readCreateDocument(body: unknown): Json {
  const data = resource(body);
  if ('id' in data) throw new DomainError('MalformedBody');
  const attributes = data.attributes as Json;
  if (!('url' in attributes)) throw new DomainError('MissingAttribute');
  return attributes;
}

/** PATCH /webhooks/:id */
export function readUpdateDocument(body: unknown, pathId: string): Json {
  const data = resource(body);
  if ('id' in data && data.id !== pathId) throw new DomainError('IdMismatch');
  return data.attributes as Json;
}
