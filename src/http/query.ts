// Query parameters of the list routes: one reader for what every list shares
// (unknown names, keyset pages, ISO 8601 bounds, enumerations), so that each
// refusal is the same 400 naming the parameter (`source.parameter`). Keyset
// pages are described in docs/read-api.md; their cursors are in cursor.ts.
import { Type } from '@sinclair/typebox';
import { DomainError, problem } from '../errors.js';

export type Query = Record<string, unknown>;

/** A 400 that names the query parameter it is about. */
export const badParameter = (name: string, detail: string) => new DomainError('InvalidQuery', [problem(name, detail)]);

/** Refuses any parameter not in `known` (a misspelt filter must not silently list everything). */
export function refuseUnknown(query: Query, known: readonly string[]): void {
  for (const name of Object.keys(query))
    if (!known.includes(name)) throw badParameter(name, `${name} is not a query parameter of this operation; known: ${known.join(', ') || 'none'}`);
}

/** A parameter given once, as text; undefined when absent. */
export function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badParameter(name, `${name} must be given once`);
  // Fastify decodes %00 into the string; the databases refuse NUL in text.
  if (value.includes('\u0000')) throw badParameter(name, `${name} must not contain NUL`);
  return value;
}

export function oneOf<T extends string>(query: Query, name: string, values: readonly T[]): T | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  if (!(values as readonly string[]).includes(value)) throw badParameter(name, `${name} must be one of ${values.join(', ')}`);
  return value as T;
}

export const PAGE_SIZE = { min: 1, max: 100, default: 25 } as const;

/** page_size of a keyset list: 1 to 100; out of range is refused, not clamped (a client learns its mistake). */
export function pageSize(query: Query): number {
  const raw = single(query, 'page_size');
  if (raw === undefined) return PAGE_SIZE.default;
  if (!/^\d{1,4}$/.test(raw) || Number(raw) < PAGE_SIZE.min || Number(raw) > PAGE_SIZE.max)
    throw badParameter('page_size', `page_size must be a whole number from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}`);
  return Number(raw);
}

// A calendar date, or a date and time with an explicit offset (Z or ±HH:MM), fraction to microseconds.
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}:\d{2}))?$/;

/** An ISO 8601 time as microseconds since the epoch; a date alone is its midnight UTC. */
export function isoTime(query: Query, name: string): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  const micros = parseIsoMicros(raw);
  if (micros === null) throw badParameter(name, `${name} must be an ISO 8601 date (2026-01-31) or time with offset (2026-01-31T12:00:00Z)`);
  return micros;
}

export function parseIsoMicros(raw: string): number | null {
  const m = ISO_TIME.exec(raw);
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', offset = 'Z'] = m;
  const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`);
  // Date.parse rolls 2026-02-30 over to March; the calendar date must exist as written.
  const calendar = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (
    Number.isNaN(ms) ||
    calendar.getUTCMonth() !== Number(mo) - 1 ||
    calendar.getUTCDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  )
    return null;
  if (Number(y) < 1970) return null;
  return ms * 1000 + Number(fraction.padEnd(6, '0'));
}

/** since ≤ until when both are given. */
export function checkWindow(since: number | undefined, until: number | undefined): void {
  if (since !== undefined && until !== undefined && since > until) throw badParameter('until', 'until must not be before since');
}

/** A string parameter of a closed set, for the OpenAPI document. */
export const enumOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });

/** OpenAPI parameters every keyset list shares. */
export const KeysetQuery = {
  page_size: Type.Optional(Type.Integer({ minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max, default: PAGE_SIZE.default })),
  cursor: Type.Optional(Type.String({ description: 'Opaque: copy it from links.next' })),
};

export const Links = Type.Object({ next: Type.Union([Type.String(), Type.Null()], { description: 'The next page, or null on the last one' }) });

/** One page of rows plus whether more follow: the repository fetches size + 1. */
export function pageOf<T>(rows: T[], size: number): { rows: T[]; more: boolean } {
  return rows.length > size ? { rows: rows.slice(0, size), more: true } : { rows, more: false };
}
