// GET /tags query parameters (docs/api.md#tags). One table of rules serves the
// reader (400 InvalidQuery) and the OpenAPI parameters, so a generated client
// is told exactly what the server accepts.
import { Type } from '@sinclair/typebox';
import { DomainError } from '../errors.js';
import { enumOf, oneOf, refuseUnknown } from '../http/query.js';
import * as tagsRepo from './repository.js';
import type { ListQuery, OrderField, OrderTerm } from './repository.js';
import { LIMITS } from './rules.js';

type Json = Record<string, unknown>;

const DIRECTIONS = ['asc', 'desc'] as const;
const STATUSES = ['created', 'configured'] as const;
// The array parameters are also read without their brackets.
const KNOWN = ['page', 'page_size', 'q', 'status', 'order_by[]', 'order_by', 'order_directions[]', 'order_directions'];
// Page numbers and sizes are read as at most 15 digits: exact as a JS number and as a DB offset.
const NUMBER_RANGE = { minimum: 1, maximum: 10 ** 15 - 1 };
const PAGE = { ...NUMBER_RANGE, default: 1 };
const PAGE_SIZE = { ...NUMBER_RANGE, default: LIMITS.pageSize.default };
/** When order_by is omitted: the most recently changed tags first (docs/api.md#tags). */
const DEFAULT_ORDER: OrderTerm = { field: 'updated_at', direction: 'desc' };
/** A direction not given for an order_by entry. */
const DEFAULT_DIRECTION = 'asc';
// Fastify decodes %00 into the string; the databases refuse NUL in text.
const NO_NUL = '^[^\\u0000]*$';

export const ListQuerySchema = Type.Object({
  page: Type.Optional(Type.Integer({ ...PAGE, description: '1-based' })),
  page_size: Type.Optional(Type.Integer({ ...PAGE_SIZE, description: `Values above ${LIMITS.pageSize.max} yield ${LIMITS.pageSize.max}` })),
  q: Type.Optional(
    Type.String({
      pattern: NO_NUL,
      description:
        'Substring of the comment, compared after NFKC and full Unicode case folding on both sides (ß = ss, K = k; accents count), or an exact tag id; empty means no filter',
    }),
  ),
  'order_by[]': Type.Optional(
    Type.Array(enumOf(tagsRepo.ORDER_FIELDS), {
      uniqueItems: true,
      description: `Sort fields, most significant first; the tag id always breaks ties. Without it: ${DEFAULT_ORDER.field} ${DEFAULT_ORDER.direction}.`,
    }),
  ),
  status: Type.Optional(enumOf(STATUSES)),
  'order_directions[]': Type.Optional(
    Type.Array(enumOf(DIRECTIONS), {
      description: `One per order_by[] entry, in the same order (no more entries than order_by[]); a missing one is ${DEFAULT_DIRECTION}`,
    }),
  ),
});

function list(query: Json, name: string): string[] {
  // The querystring parser yields a string, or an array of them for a repeated name.
  const value = (query[`${name}[]`] ?? query[name]) as string | string[] | undefined;
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}

function pageNumber(raw: unknown, rule: typeof PAGE): number {
  if (raw === undefined) return rule.default;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) throw new DomainError('InvalidQuery');
  const n = Number(raw);
  if (n < rule.minimum || n > rule.maximum) throw new DomainError('InvalidQuery');
  return n;
}

/** GET /tags query → page, size and order (docs/api.md#tags). */
export function readListQuery(query: Json): ListQuery & { page: number; pageSize: number } {
  refuseUnknown(query, KNOWN);
  const status = oneOf(query, 'status', STATUSES) ?? null;
  const page = pageNumber(query.page, PAGE);
  const pageSize = Math.min(pageNumber(query.page_size, PAGE_SIZE), LIMITS.pageSize.max);
  if (query.q !== undefined && (typeof query.q !== 'string' || !new RegExp(NO_NUL).test(query.q))) throw new DomainError('InvalidQuery');
  const q = typeof query.q === 'string' && query.q !== '' ? query.q : null;
  const fields = list(query, 'order_by');
  const directions = list(query, 'order_directions');
  if (directions.length > fields.length) throw new DomainError('InvalidQuery');
  if (fields.some((f) => !(tagsRepo.ORDER_FIELDS as readonly string[]).includes(f))) throw new DomainError('InvalidQuery');
  if (directions.some((d) => !(DIRECTIONS as readonly string[]).includes(d))) throw new DomainError('InvalidQuery');
  if (new Set(fields).size !== fields.length) throw new DomainError('InvalidQuery');
  const order: OrderTerm[] =
    fields.length === 0
      ? [DEFAULT_ORDER]
      : fields.map((field, i) => ({ field: field as OrderField, direction: (directions[i] ?? DEFAULT_DIRECTION) as OrderTerm['direction'] }));
  return { page, pageSize, q, status, order, limit: pageSize, offset: (page - 1) * pageSize };
}
