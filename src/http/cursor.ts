// The opaque cursor of a keyset list (docs/read-api.md, Keyset pages): the last row's sort key and
// an HMAC binding it to the list that gave it out, the caller's world and every other parameter of
// the query, so that a cursor is honoured only where it was issued. Any other (another list, world
// or filter, an altered position, a cursor of the old unsigned format) is the same 400 naming `cursor`.
import { isId, type IdPrefix } from '../ids.js';
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { World } from '../world.js';
import { badParameter, single, type Query } from './query.js';

/** A row's place in its list's order, as the list's keyset compares it. */
export type Position = readonly (string | number)[];

// base64url of the tag (16 bytes: 22 characters), then base64url of the position's JSON.
const FORMAT = /^([A-Za-z0-9_-]{22})([A-Za-z0-9_-]{1,400})$/;
const TAG_BYTES = 16;

/** The process's master keys (src/master-keys/masters.ts), of which the cursors need the sandbox one. */
export interface CursorMasters {
  of(mode: 'sandbox'): Promise<Buffer>;
}

/**
 * The cursor key, derived from the sandbox master in `settings`: every deployment has it (production's
 * master may be absent on PostgreSQL until production is used) and every process of the deployment
 * reads the same one from the shared database, so any server accepts another's cursors, across
 * restarts too. A label of its own keeps it apart from the keys sealed or derived under that master.
 */
async function cursorKey(masters: CursorMasters): Promise<Buffer> {
  return Buffer.from(hkdfSync('sha256', await masters.of('sandbox'), Buffer.alloc(0), 'tapproof/list-cursor', 32));
}

/** The cursors of one request to a keyset list: the one it brought, and the one its links.next carries. */
export interface ListCursors {
  /** The position the request's cursor continues after (undefined without one); 400 naming `cursor` unless it was issued for this very list, world and query. */
  read<K extends Position>(shape: (value: unknown) => value is K): Promise<K | undefined>;
  /** links.next: the same query with a cursor after `last`, or null on the last page. */
  next(path: string, last: Position | null): Promise<string | null>;
}

/** `list` names the list as its path does below the API prefix (`verifications`, `webhooks/whk_…/deliveries`). */
export function listCursors(masters: CursorMasters, list: string, world: World, query: Query): ListCursors {
  let key: Promise<Buffer> | undefined;
  // Every parameter but the cursor, by name: a cursor belongs to the exact filter and page size it was issued under.
  const rest = Object.entries(query)
    .filter(([name]) => name !== 'cursor')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const tag = async (position: string) =>
    createHmac('sha256', await (key ??= cursorKey(masters)))
      .update(JSON.stringify(['tapproof list cursor v1', list, world.teamId, world.mode, rest, position]))
      .digest()
      .subarray(0, TAG_BYTES)
      .toString('base64url');
  return {
    async read(shape) {
      const raw = single(query, 'cursor');
      if (raw === undefined) return undefined;
      const refused = () => badParameter('cursor', 'cursor is not one this list gave out for this query; start again without it');
      const [, given, position] = FORMAT.exec(raw) ?? [];
      if (given === undefined || position === undefined) throw refused();
      // Compared as text: base64url decoding would accept more than one spelling of the same bytes.
      if (!timingSafeEqual(Buffer.from(given), Buffer.from(await tag(position)))) throw refused();
      let value: unknown;
      try {
        value = JSON.parse(Buffer.from(position, 'base64url').toString('utf8'));
      } catch {
        value = undefined;
      }
      if (!shape(value)) throw refused();
      return value;
    },
    async next(path, last) {
      if (last === null) return null;
      const position = Buffer.from(JSON.stringify(last)).toString('base64url');
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) if (name !== 'cursor' && typeof value === 'string') params.set(name, value);
      params.set('cursor', `${await tag(position)}${position}`);
      return `${path}?${params.toString()}`;
    },
  };
}

/** A guard for the position of a list in (time, id) order: microseconds not before the epoch, and an id of `prefix`. */
export const isTimePosition =
  (prefix: IdPrefix) =>
  (value: unknown): value is [number, string] =>
    Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && (value[0] as number) >= 0 && isId(prefix, value[1]);
