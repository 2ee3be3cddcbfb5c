// Reading the JSON:API request documents of the webhook routes: shape problems
// are 400, value problems are left to the service (422 with pointers).
import { ApiError } from '../http/errors.js';
import { isObject, type Json } from '../json.js';

function resource(body: unknown): Json {
  if (!isObject(body) || !isObject(body.data) || body.data.type !== 'webhooks' || !isObject(body.data.attributes)) throw new ApiError('MalformedBody');
  return body.data;
}

/** POST /webhooks */
export function readCreateDocument(body: unknown): Json {
  const data = resource(body);
  if ('id' in data) throw new ApiError('MalformedBody');
  const attributes = data.attributes as Json;
  if (!('url' in attributes)) throw new ApiError('MissingAttribute');
  return attributes;
}

/** PATCH /webhooks/:id */
export function readUpdateDocument(body: unknown, pathId: string): Json {
  const data = resource(body);
  if ('id' in data && data.id !== pathId) throw new ApiError('IdMismatch');
  return data.attributes as Json;
}
