// Reading the JSON:API request documents of the case routes: shape problems are 400, value problems are
// left to the service (422 naming the fields).
import { DomainError } from '../errors.js';
import { isObject, type Json } from '../json.js';

function resource(body: unknown, type: string): Json {
  if (!isObject(body) || !isObject(body.data) || body.data.type !== type || !isObject(body.data.attributes)) throw new DomainError('MalformedBody');
  return body.data;
}

/** PATCH /cases/:id */
export function readUpdateDocument(body: unknown, pathId: string): Json {
  const data = resource(body, 'cases');
  if ('id' in data && data.id !== pathId) throw new DomainError('IdMismatch');
  return data.attributes as Json;
}

/** POST /cases/:id/notes */
export function readNoteDocument(body: unknown): Json {
  const data = resource(body, 'case-notes');
  if ('id' in data) throw new DomainError('MalformedBody');
  const attributes = data.attributes as Json;
  if (!('body' in attributes)) throw new DomainError('MissingAttribute');
  return attributes;
}
