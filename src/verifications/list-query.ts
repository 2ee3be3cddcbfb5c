// Query parameters of GET /verifications and GET /verifications/stats (docs/read-api.md).
// One table serves the reader (400 naming the parameter) and the OpenAPI parameters.
import { Type } from '@sinclair/typebox';
import { isId } from '../ids.js';
import { isTimePosition, type ListCursors } from '../http/cursor.js';
import { enumOf, KeysetQuery, badParameter, checkWindow, isoTime, oneOf, pageSize, refuseUnknown, single, type Query } from '../http/query.js';
import { REASONS } from './schemas.js';
import { SIGNALS, type Signal } from '../signals/index.js';

// A country as the verify path stores it (src/geoip/countries.ts): ISO 3166-1 alpha-2, two capital letters.
const COUNTRY = /^[A-Z]{2}$/;
const ISO = 'ISO 8601: a date (2026-01-31, midnight UTC) or a time with offset (2026-01-31T12:00:00Z)';

export const ListVerificationsQuery = Type.Object({
  tag_id: Type.Optional(Type.String({ description: "Only this tag's verifications (a tag of another world lists none)" })),
  case_id: Type.Optional(
    Type.String({ description: "Only this case's scans, every one of them (GET /cases/:id shows the newest 100); a case of another world lists none" }),
  ),
  genuine: Type.Optional(enumOf(['true', 'false'] as const)),
  reason: Type.Optional(enumOf(REASONS)),
  signal: Type.Optional(enumOf(SIGNALS)),
  flagged: Type.Optional(enumOf(['true', 'false'] as const)),
  country: Type.Optional(
    Type.String({
      pattern: COUNTRY.source,
      description: 'Scanned in this country: an ISO 3166-1 alpha-2 code in capitals (DE); a scan of no known country is in none',
    }),
  ),
  since: Type.Optional(Type.String({ description: `Scanned at or after; ${ISO}` })),
  until: Type.Optional(Type.String({ description: `Scanned before; ${ISO}` })),
  ...KeysetQuery,
});

/** A page of GET /verifications: `size` rows are shown, one more is read. */
export interface VerificationListing {
  tagId?: string;
  caseId?: string;
  genuine?: boolean;
  reason?: (typeof REASONS)[number];
  signal?: Signal;
  flagged?: boolean;
  country?: string;
  since?: number;
  until?: number;
  before?: readonly [number, string];
  size: number;
}

const isKey = isTimePosition('vrf');

/** The filter and page of GET /verifications; the cursor is read last, once the query it is bound to is known to be valid. */
export async function readListVerificationsQuery(query: Query, cursors: ListCursors): Promise<VerificationListing> {
  refuseUnknown(query, Object.keys(ListVerificationsQuery.properties));
  const filter = readFilter(query);
  return { ...filter, size: pageSize(query), before: await cursors.read(isKey) };
}

/** GET /verifications/export: the list's filters, every row (no page). */
export const ExportVerificationsQuery = Type.Omit(ListVerificationsQuery, Object.keys(KeysetQuery) as (keyof typeof KeysetQuery)[]);

export function readExportVerificationsQuery(query: Query): Omit<VerificationListing, 'size' | 'before'> {
  refuseUnknown(query, Object.keys(ExportVerificationsQuery.properties));
  return readFilter(query);
}

function readFilter(query: Query): Omit<VerificationListing, 'size' | 'before'> {
  const tagId = single(query, 'tag_id');
  if (tagId !== undefined && !isId('tag', tagId)) throw badParameter('tag_id', 'tag_id must be a tag id (tag_…)');
  const caseId = single(query, 'case_id');
  if (caseId !== undefined && !isId('case', caseId)) throw badParameter('case_id', 'case_id must be a case id (case_…)');
  const genuine = oneOf(query, 'genuine', ['true', 'false'] as const);
  const since = isoTime(query, 'since');
  const until = isoTime(query, 'until');
  checkWindow(since, until);
  const reason = oneOf(query, 'reason', REASONS);
  const signal = oneOf(query, 'signal', SIGNALS);
  const flagged = oneOf(query, 'flagged', ['true', 'false'] as const);
  if (signal !== undefined && flagged === 'false')
    throw badParameter('flagged', 'flagged=false lists scans without signals: it cannot be combined with signal');
  // Refused, not upper-cased or looked up: `de` or `DEU` matches no stored scan, and a client should learn its mistake
  // rather than read an empty list. A well-formed code no scan has (ZZ) is a filter like any other: it lists none.
  const country = single(query, 'country');
  if (country !== undefined && !COUNTRY.test(country)) throw badParameter('country', 'country must be an ISO 3166-1 alpha-2 code, two capital letters (DE)');
  return {
    tagId,
    caseId,
    genuine: genuine === undefined ? undefined : genuine === 'true',
    reason,
    signal,
    flagged: flagged === undefined ? undefined : flagged === 'true',
    country,
    since,
    until,
  };
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** The longest window of one statistics request, in days. */
export const MAX_STATS_DAYS = 366;
const DEFAULT_STATS_DAYS = 30;
export const DAY_MICROS = 86_400_000_000;

export const StatsQuery = Type.Object({
  since: Type.Optional(Type.String({ format: 'date', description: `First UTC day (YYYY-MM-DD); default ${DEFAULT_STATS_DAYS - 1} days before until` })),
  until: Type.Optional(Type.String({ format: 'date', description: `Last UTC day, included (YYYY-MM-DD); default today` })),
});

function day(query: Query, name: string): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  const micros = DAY.test(raw) ? isoTime(query, name) : undefined;
  if (micros === undefined) throw badParameter(name, `${name} must be a UTC day, YYYY-MM-DD`);
  return micros;
}

/** The window of GET /verifications/stats: whole UTC days, `since` to `until` included, at most 366 of them. */
export function readStatsQuery(query: Query, now: number): { since: number; until: number } {
  refuseUnknown(query, Object.keys(StatsQuery.properties));
  const until = day(query, 'until') ?? Math.floor(now / DAY_MICROS) * DAY_MICROS;
  const since = day(query, 'since') ?? until - (DEFAULT_STATS_DAYS - 1) * DAY_MICROS;
  checkWindow(since, until);
  if ((until - since) / DAY_MICROS + 1 > MAX_STATS_DAYS)
    throw badParameter('since', `since must be at most ${MAX_STATS_DAYS - 1} days before until (${MAX_STATS_DAYS} days)`);
  return { since, until };
}
