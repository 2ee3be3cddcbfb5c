// The comment of each tag a list of scans names. A verification carries its tag's id only (the contract's
// shape), so the console reads each tag of a page once (GET /tags/:id) and keeps its comment for a minute:
// the Overview's last scans, read again every few seconds, then cost no request for the tags they repeat.
import type { Api } from './api.ts';

/** How long a comment is shown without reading its tag again (a comment can be changed through the API). */
export const COMMENT_TTL_MS = 60_000;
/** Tags remembered per signed-in key; the oldest read is forgotten first. */
const MAX_TAGS = 500;

interface Entry {
  at: number;
  comment: Promise<string | null>;
}

// Per client: a key signed in afterwards (another team or mode) never sees the comments read with this one.
const caches = new WeakMap<Api, Map<string, Entry>>();

async function lookup(api: Api, id: string): Promise<string | null> {
  const { data, response } = await api.GET('/tags/{id}', { params: { path: { id } } });
  if (data) return data.data.attributes.comment ?? null;
  // A tag deleted since its scans: it has no comment to show, and will not have one.
  if (response.status === 404) return null;
  throw new Error(`GET /tags/${id}: ${response.status}`);
}

/**
 * The comments of these tags by id (null: none, or the tag is gone). Each tag is read at most once per
 * minute, however many lists ask at once; a read that fails shows no comment and is not remembered.
 */
export async function tagComments(api: Api, tagIds: Iterable<string>, now = Date.now()): Promise<Record<string, string | null>> {
  let cache = caches.get(api);
  if (!cache) caches.set(api, (cache = new Map()));
  const known = cache;
  const pairs = await Promise.all(
    [...new Set(tagIds)].map(async (id) => {
      let entry = known.get(id);
      if (!entry || now - entry.at > COMMENT_TTL_MS) {
        entry = { at: now, comment: lookup(api, id) };
        // Deleted and set again, so that the Map's order is the order of reading.
        known.delete(id);
        known.set(id, entry);
      }
      const mine = entry;
      try {
        return [id, await mine.comment] as const;
      } catch {
        if (known.get(id) === mine) known.delete(id);
        return [id, null] as const;
      }
    }),
  );
  for (const id of known.keys()) {
    if (known.size <= MAX_TAGS) break;
    known.delete(id);
  }
  return Object.fromEntries(pairs);
}

/** The comments of the tags a list of scans names. */
export function commentsOf(api: Api, scans: readonly { attributes: { tag_id: string } }[]): Promise<Record<string, string | null>> {
  const tagIds = scans.map((scan) => scan.attributes.tag_id);
  return tagComments(api, tagIds);
}
