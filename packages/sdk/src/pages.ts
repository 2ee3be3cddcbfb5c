// The two ways the API pages a list, each walked as one async iterator: numbered pages
// (`page`, `page_size`, `meta.total_count`; tags) and keyset pages (`links.next`;
// verifications, webhook deliveries).
import type { CallOptions } from './call.js';
import type { Transport } from './transport.js';

const PAGE_SIZE = 100;

type Query = Record<string, string | number | readonly (string | number)[] | undefined>;

export interface Page<T> {
  data: T[];
  meta: { total_count: number; page: number; page_size: number };
}

/**
 * Every item of a list, page after page. Pages are numbered, so an item created or deleted
 * while the walk is under way can shift the later pages by one (an item seen twice, or missed).
 */
export async function* paginate<T>(transport: Transport, path: string, query: Query = {}, call?: CallOptions): AsyncGenerator<T> {
  const pageSize = Number(query.page_size ?? PAGE_SIZE);
  for (let page = Number(query.page ?? 1); ; page++) {
    const result = await transport.request<Page<T>>('GET', path, { query: { ...query, page, page_size: pageSize }, idempotent: true, call });
    yield* result.data;
    if (result.data.length === 0 || page * result.meta.page_size >= result.meta.total_count) return;
  }
}

/**
 * Every item of a keyset-paged list, following `links.next` until it is null. Every item that
 * existed when the walk began is seen exactly once, however many arrive meanwhile.
 */
export async function* keyset<T>(transport: Transport, path: string, query: Query = {}, call?: CallOptions): AsyncGenerator<T> {
  let next: Query | null = query;
  while (next !== null) {
    const page: { data: T[]; links: { next: string | null } } = await transport.request('GET', path, { query: next, idempotent: true, call });
    yield* page.data;
    // The link repeats the query with a cursor; only its query is taken, so that a proxy that
    // serves the API under another path than the server sees does not break the walk.
    next = page.links.next === null ? null : queryOf(page.links.next);
  }
}

function queryOf(link: string): Query {
  const query: Record<string, string> = {};
  new URL(link, 'http://link.invalid').searchParams.forEach((value, name) => (query[name] = value));
  return query;
}
