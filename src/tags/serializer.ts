import type { TagsTable } from '../db/schema.js';
import type { ResourceObject } from '../http/jsonapi.js';
import { isoMicros, isoOrNull } from '../time.js';

/** A tag as the code handles it; the repository adds and drops the search column. */
export type TagRow = Omit<TagsTable, 'comment_folded'>;

export interface TagAttributes {
  protocol: string;
  url: string;
  comment: string | null;
  session_duration: number;
  status: 'created' | 'configured';
  configured_at: string | null;
  inserted_at: string;
  updated_at: string;
}

/** The tag resource object, as every response and every webhook renders it. */
export function renderTag(row: TagRow): ResourceObject<TagAttributes> {
  return {
    type: 'tags',
    id: row.id,
    attributes: {
      protocol: row.protocol,
      url: row.url,
      comment: row.comment,
      session_duration: row.session_duration,
      status: row.status,
      configured_at: isoOrNull(row.configured_at),
      inserted_at: isoMicros(row.inserted_at),
      updated_at: isoMicros(row.updated_at),
    },
  };
}
