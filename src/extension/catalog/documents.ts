// Reading the JSON:API request documents of the catalog's routes: shape problems and a missing
// required attribute are 400; values are left to the rules (422 naming the fields).
import { DomainError } from '../../errors.js';
import { isObject, type Json } from '../../json.js';

function resource(body: unknown, type: string): Json {
  if (!isObject(body) || !isObject(body.data) || body.data.type !== type || !isObject(body.data.attributes)) throw new DomainError('MalformedBody');
  return body.data;
}

/** POST /products, POST /tokens, POST /tokens/:id/holdings: a new resource, no id, its required attributes present. */
export function readCreateDocument(body: unknown, type: string, required: readonly string[]): Json {
  const data = resource(body, type);
  if ('id' in data) throw new DomainError('MalformedBody');
  const attributes = data.attributes as Json;
  if (required.some((name) => !(name in attributes))) throw new DomainError('MissingAttribute');
  return attributes;
}

/** PATCH /tags/:id/links: the tag's id, if given, is the path's; at least one link is given. */
export function readLinksDocument(body: unknown, pathId: string): Json {
  const data = resource(body, 'tag-links');
  if ('id' in data && data.id !== pathId) throw new DomainError('IdMismatch');
  const attributes = data.attributes as Json;
  if (!('product_id' in attributes) && !('token_id' in attributes)) throw new DomainError('MissingAttribute');
  return attributes;
}
