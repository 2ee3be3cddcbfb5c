// Reading the JSON:API request document of PATCH /teams/current: shape problems are 400, value
// problems are left to the service (422 naming the fields).
import { DomainError } from '../errors.js';
import { isObject, type Json } from '../json.js';

/** The attributes of a `teams` document for the key's own team. */
export function readUpdateDocument(body: unknown, teamId: string): Json {
  if (!isObject(body) || !isObject(body.data) || body.data.type !== 'teams' || !isObject(body.data.attributes)) throw new DomainError('MalformedBody');
  if ('id' in body.data && body.data.id !== teamId) throw new DomainError('IdMismatch');
  return body.data.attributes;
}
