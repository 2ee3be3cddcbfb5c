// Reading the JSON:API request documents of the tag routes. Shape problems are
// 400 (docs/api.md#requests-and-errors: wrong data shape, batch size, missing protocol/url); value problems
// are left to the rules (422).
import { DomainError } from '../errors.js';
import { isId } from '../ids.js';
import { LIMITS } from './rules.js';
import { isObject, type Json } from '../json.js';

function batch(body: unknown): Json[] {
  if (!isObject(body) || !Array.isArray(body.data)) throw new DomainError('MalformedBody');
  if (body.data.length < 1 || body.data.length > LIMITS.batch) throw new DomainError('BatchSize');
  return body.data.map((entry) => {
    if (!isObject(entry) || entry.type !== 'tags') throw new DomainError('MalformedBody');
    return entry;
  });
}

function attributesOf(entry: Json): Json {
  if (!isObject(entry.attributes)) throw new DomainError('MalformedBody');
  return entry.attributes;
}

/** POST /tags: the attributes of each entry. */
export function readCreateDocument(body: unknown): Json[] {
  return batch(body).map((entry) => {
    // Ids are assigned by the platform; a client-chosen one is refused, not ignored.
    if ('id' in entry) throw new DomainError('MalformedBody');
    const attributes = attributesOf(entry);
    if (!('protocol' in attributes) || !('url' in attributes)) throw new DomainError('MissingAttribute');
    return attributes;
  });
}

/** PATCH /tags/:id */
export function readUpdateDocument(body: unknown, pathId: string): Json {
  if (!isObject(body) || !isObject(body.data) || body.data.type !== 'tags') throw new DomainError('MalformedBody');
  if ('id' in body.data && body.data.id !== pathId) throw new DomainError('IdMismatch');
  return attributesOf(body.data);
}

/** PATCH /tags */
export function readBatchUpdateDocument(body: unknown): { id: string; attributes: Json }[] {
  return batch(body).map((entry) => {
    if (typeof entry.id !== 'string') throw new DomainError('MalformedBody');
    return { id: entry.id, attributes: attributesOf(entry) };
  });
}

/** DELETE /tags */
export function readBatchDeleteDocument(body: unknown): string[] {
  return batch(body).map((entry) => {
    if (!isId('tag', entry.id)) throw new DomainError('MalformedId');
    return entry.id;
  });
}
