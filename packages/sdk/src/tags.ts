// tags: create, get, update, delete in any number (chunks of the API's batch limit), and list.
import type { CallOptions } from './call.js';
import { TapproofBatchError, TapproofError } from './errors.js';
import { paginate } from './pages.js';
import type { Transport } from './transport.js';
import type { DeletedTags, Tag, TagChip, TagInput, TagLinks, TagListParams, TagUpdate, TagWrite } from './types.js';

/** The API's batch limit: at most this many entries per POST, PATCH or DELETE /tags. */
export const CHUNK = 500;

/** Runs `send` over consecutive chunks, in order; the first failing chunk stops the run. */
async function inChunks<In, Out>(entries: readonly In[], send: (chunk: In[]) => Promise<Out[]>): Promise<Out[]> {
  const done: Out[] = [];
  for (let start = 0; start < entries.length; start += CHUNK) {
    try {
      done.push(...(await send(entries.slice(start, start + CHUNK))));
    } catch (error) {
      if (error instanceof TapproofError) throw new TapproofBatchError(done, start, error);
      throw error;
    }
  }
  return done;
}

export class Tags {
  constructor(private readonly transport: Transport) {}

  /** Creates every entry, 500 per request, in order; returns the created tags in the same order. */
  create(entries: readonly TagInput[], call?: CallOptions): Promise<Tag[]> {
    return inChunks(entries, async (chunk) => {
      const body = { data: chunk.map((attributes) => ({ type: 'tags', attributes })) };
      return (await this.transport.request<{ data: Tag[] }>('POST', '/tags', { body, idempotent: false, call })).data;
    });
  }

  async get(id: string, call?: CallOptions): Promise<Tag> {
    return (await this.transport.request<{ data: Tag }>('GET', `/tags/${encodeURIComponent(id)}`, { idempotent: true, call })).data;
  }

  /** The chip bound to a configured tag (404 while the tag is not written). */
  async chip(id: string, call?: CallOptions): Promise<TagChip> {
    return (await this.transport.request<{ data: TagChip }>('GET', `/tags/${encodeURIComponent(id)}/chip`, { idempotent: true, call })).data;
  }

  /** The tag's writes, newest first (at most 100). */
  async writes(id: string, call?: CallOptions): Promise<TagWrite[]> {
    return (await this.transport.request<{ data: TagWrite[] }>('GET', `/tags/${encodeURIComponent(id)}/writes`, { idempotent: true, call })).data;
  }

  /** The tag's product and token (each null while unset). */
  async links(id: string, call?: CallOptions): Promise<TagLinks> {
    return (await this.transport.request<{ data: TagLinks }>('GET', `/tags/${encodeURIComponent(id)}/links`, { idempotent: true, call })).data;
  }

  /** Sets the given attributes of each tag, 500 per request, in order; returns the updated tags. */
  update(entries: readonly TagUpdate[], call?: CallOptions): Promise<Tag[]> {
    return inChunks(entries, async (chunk) => {
      const body = { data: chunk.map(({ id, ...attributes }) => ({ type: 'tags', id, attributes })) };
      // Setting values again leaves the same state, so a request whose answer was lost is resent.
      return (await this.transport.request<{ data: Tag[] }>('PATCH', '/tags', { body, idempotent: true, call })).data;
    });
  }

  /**
   * Deletes the tags never written to a chip; configured ones are kept (`kept`). 500 ids per request.
   * A failing chunk throws TapproofBatchError, whose `created` holds the ids deleted before it.
   */
  async delete(ids: readonly string[], call?: CallOptions): Promise<DeletedTags> {
    const outcome: DeletedTags = { deleted: [], kept: [] };
    const deleted = await inChunks(ids, async (chunk) => {
      const body = { data: chunk.map((id) => ({ type: 'tags', id })) };
      const { meta } = await this.transport.request<{ meta: DeletedTags }>('DELETE', '/tags', { body, idempotent: true, call });
      outcome.kept.push(...meta.kept);
      return meta.deleted;
    });
    outcome.deleted.push(...deleted);
    return outcome;
  }

  /** Every tag matching `params` (q, order_by[], order_directions[]), fetched page by page. */
  list(params: Omit<TagListParams, 'page'> = {}, call?: CallOptions): AsyncGenerator<Tag> {
    return paginate<Tag>(this.transport, '/tags', params, call);
  }
}
