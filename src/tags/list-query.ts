// GET /tags and GET /tags/export query parameters (docs/api.md#tags). One table
// of rules serves the reader (400 InvalidQuery) and the OpenAPI parameters, so a
// generated client is told exactly what the server accepts; the export takes the
// list's filters through the same reader.
import { Type } from '@sinclair/typebox';
import { DomainError } from '../errors.js';
import { badParameter, enumOf, oneOf, refuseUnknown, single, type Query } from '../http/query.js';
import { textProblem } from '../http/text-rules.js';
import * as tagsRepo from './repository.js';
import type { ListQuery, OrderField, OrderTerm, UrlMatch } from './repository.js';
import { LIMITS } from './rules.js';
import type { TagRow } from './serializer.js';

type Json = Record<string, unknown>;

const DIRECTIONS = ['asc', 'desc'] as const;
const STATUSES = ['created', 'configured'] as const;
// The array parameters are also read without their brackets.
const KNOWN = ['page', 'page_size', 'q', 'status', 'url', 'uid', 'order_by[]', 'order_by', 'order_directions[]', 'order_directions'];
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
/** The one wildcard of `url`: a last character that asks for every url starting with what precedes it. */
const PREFIX_MARK = '*';
// NTAG 424 DNA, 424 DNA TT and 223 DNA all carry a 7-byte UID; chips.uid holds it as upper-case hex.
const UID = /^[0-9A-Fa-f]{14}$/;

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
  url: Type.Optional(
    Type.String({
      minLength: 1,
      description: `The tag's url exactly as stored (byte for byte, case included), or, with a last \`${PREFIX_MARK}\`, every url starting with what precedes it (\`https://brand.example/p/12${PREFIX_MARK}\`). A \`${PREFIX_MARK}\` elsewhere, \`%\` and \`_\` are literal characters. At most ${LIMITS.urlBytes} bytes before the \`${PREFIX_MARK}\`.`,
    }),
  ),
  uid: Type.Optional(
    Type.String({
      pattern: UID.source,
      description: "The UID of the tag's chip: 7 bytes as 14 hex digits, either case. Only a tag bound to a chip (written, imported or emulated) has one.",
    }),
  ),
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

/** `url`: an exact url, or a prefix when it ends in the mark; never empty, at most a stored url's length. */
function urlMatch(query: Query): UrlMatch | null {
  const raw = single(query, 'url');
  if (raw === undefined) return null;
  const prefix = raw.endsWith(PREFIX_MARK);
  const text = prefix ? raw.slice(0, -PREFIX_MARK.length) : raw;
  // An empty value, or the mark alone, would quietly list every tag: a search box sent before anything was typed.
  if (text === '') throw badParameter('url', `url must not be empty (a url, or the start of one followed by ${PREFIX_MARK})`);
  // What a tag url may not hold (control characters, lone surrogates) matches no tag; said rather than searched for.
  const problem = textProblem('url', text);
  if (problem) throw badParameter('url', problem);
  if (Buffer.byteLength(text) > LIMITS.urlBytes) throw badParameter('url', `url must be at most ${LIMITS.urlBytes} bytes, as a tag url is`);
  return prefix ? { prefix: text } : { exact: text };
}

/** `uid`: 14 hex digits of either case, upper-cased as chips.uid stores it. */
function chipUid(query: Query): string | null {
  const raw = single(query, 'uid');
  if (raw === undefined) return null;
  if (!UID.test(raw)) throw badParameter('uid', 'uid must be a 7-byte chip UID: 14 hex digits (04A1B2C3D4E5F6)');
  return raw.toUpperCase();
}

/** The filters of GET /tags and GET /tags/export; null is no filter. */
export interface TagListFilter {
  q: string | null;
  status: TagRow['status'] | null;
  url: UrlMatch | null;
  uid: string | null;
}

/** q, status, url and uid, each refused value a 400 naming its parameter. */
function readFilter(query: Query): TagListFilter {
  const status = oneOf(query, 'status', STATUSES) ?? null;
  const url = urlMatch(query);
  const uid = chipUid(query);
  // An empty q is the search box sent with nothing typed: no filter.
  const q = single(query, 'q') || null;
  return { q, status, url, uid };
}

/** GET /tags query → filters, page, size and order (docs/api.md#tags). */
export function readListQuery(query: Json): ListQuery & TagListFilter & { page: number; pageSize: number } {
  refuseUnknown(query, KNOWN);
  const filter = readFilter(query);
  const page = pageNumber(query.page, PAGE);
  const pageSize = Math.min(pageNumber(query.page_size, PAGE_SIZE), LIMITS.pageSize.max);
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
  return { ...filter, page, pageSize, order, limit: pageSize, offset: (page - 1) * pageSize };
}

/** GET /tags/export: the list's filters and no page or order, since the export walks every tag by id. */
export const ExportQuerySchema = Type.Pick(ListQuerySchema, ['q', 'status', 'url', 'uid']);

export function readExportQuery(query: Query): TagListFilter {
  refuseUnknown(query, Object.keys(ExportQuerySchema.properties));
  return readFilter(query);
}
