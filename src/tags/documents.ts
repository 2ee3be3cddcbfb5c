// Reading the JSON:API request documents of the tag routes. Shape problems are
// 400 (spec: wrong data shape, batch size, missing protocol/url); value problems
// are left to the rules (422).
import { ApiError } from '../http/errors.js';
import { isId } from '../ids.js';
import { ORDER_FIELDS, type ListQuery, type OrderField, type OrderTerm } from './repository.js';
import { LIMITS } from './rules.js';
import { isObject, type Json } from '../json.js';

function batch(body: unknown): Json[] {
  if (!isObject(body) || !Array.isArray(body.data)) throw new ApiError('MalformedBody');
  if (body.data.length < 1 || body.data.length > LIMITS.batch) throw new ApiError('BatchSize');
  return body.data.map((entry) => {
    if (!isObject(entry) || entry.type !== 'tags') throw new ApiError('MalformedBody');
    return entry;
  });
}

function attributesOf(entry: Json): Json {
  if (!isObject(entry.attributes)) throw new ApiError('MalformedBody');
  return entry.attributes;
}

/** POST /tags: the attributes of each entry. */
export function readCreateDocument(body: unknown): Json[] {
  return batch(body).map((entry) => {
    // Ids are assigned by the platform; a client-chosen one is refused, not ignored.
    if ('id' in entry) throw new ApiError('MalformedBody');
    const attributes = attributesOf(entry);
    if (!('protocol' in attributes) || !('url' in attributes)) throw new ApiError('MissingAttribute');
    return attributes;
  });
}

/** PATCH /tags/:id */
export function readUpdateDocument(body: unknown, pathId: string): Json {
  if (!isObject(body) || !isObject(body.data) || body.data.type !== 'tags') throw new ApiError('MalformedBody');
  if ('id' in body.data && body.data.id !== pathId) throw new ApiError('IdMismatch');
  return attributesOf(body.data);
}

/** PATCH /tags */
export function readBatchUpdateDocument(body: unknown): { id: string; attributes: Json }[] {
  return batch(body).map((entry) => {
    if (typeof entry.id !== 'string') throw new ApiError('MalformedBody');
    return { id: entry.id, attributes: attributesOf(entry) };
  });
}

/** DELETE /tags */
export function readBatchDeleteDocument(body: unknown): string[] {
  return batch(body).map((entry) => {
    if (!isId('tag', entry.id)) throw new ApiError('MalformedId');
    return entry.id;
  });
}

function list(query: Json, name: string): string[] {
  const value = query[`${name}[]`] ?? query[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}

function positiveInteger(raw: unknown, fallback: number): number {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw new ApiError('InvalidQuery');
  return Number(raw);
}

/** GET /tags query → page, size and order (spec: GET /tags rules 1–2). */
export function readListQuery(query: Json): ListQuery & { page: number; pageSize: number } {
  const page = positiveInteger(query.page, 1);
  const pageSize = Math.min(positiveInteger(query.page_size, LIMITS.pageSize.default), LIMITS.pageSize.max);
  const q = typeof query.q === 'string' && query.q !== '' ? query.q : null;
  if (query.q !== undefined && (typeof query.q !== 'string' || query.q.includes('\u0000'))) throw new ApiError('InvalidQuery');
  const fields = list(query, 'order_by');
  const directions = list(query, 'order_directions');
  if (directions.length > fields.length && !(fields.length === 0 && directions.length === 0)) throw new ApiError('InvalidQuery');
  if (fields.some((f) => !(ORDER_FIELDS as readonly string[]).includes(f))) throw new ApiError('InvalidQuery');
  if (directions.some((d) => d !== 'asc' && d !== 'desc')) throw new ApiError('InvalidQuery');
  if (new Set(fields).size !== fields.length) throw new ApiError('InvalidQuery');
  const order: OrderTerm[] =
    fields.length === 0
      ? [{ field: 'updated_at', direction: 'desc' }]
      : fields.map((field, i) => ({ field: field as OrderField, direction: (directions[i] ?? 'asc') as 'asc' | 'desc' }));
  return { page, pageSize, q, order, limit: pageSize, offset: (page - 1) * pageSize };
}
