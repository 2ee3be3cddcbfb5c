import { Type } from '@sinclair/typebox';
import { Timestamp } from '../http/schemas.js';
import { ATTRIBUTES, LIMITS } from './rules.js';

// The request documents are composed from the rules table, so what OpenAPI publishes is what validates.
const protocol = ATTRIBUTES.protocol.schema;
const url = ATTRIBUTES.url.schema;
const comment = ATTRIBUTES.comment.schema;
const sessionDuration = ATTRIBUTES.session_duration.schema;

export const Tag = Type.Object(
  {
    type: Type.Literal('tags'),
    id: Type.String({ description: 'tag_…' }),
    attributes: Type.Object({
      protocol,
      url: Type.String(),
      comment,
      session_duration: Type.Integer(),
      status: Type.Union([Type.Literal('created'), Type.Literal('configured')]),
      configured_at: Type.Union([Timestamp, Type.Null()]),
      inserted_at: Timestamp,
      updated_at: Timestamp,
    }),
  },
  { $id: 'Tag' },
);

export const TagDocument = Type.Object({ data: Type.Ref('Tag') });
export const TagsDocument = Type.Object({ data: Type.Array(Type.Ref('Tag')) });
export const TagPage = Type.Object({
  data: Type.Array(Type.Ref('Tag')),
  meta: Type.Object({ total_count: Type.Integer(), page: Type.Integer(), page_size: Type.Integer() }),
});

const batch = <T extends Parameters<typeof Type.Array>[0]>(item: T) => Type.Object({ data: Type.Array(item, { minItems: 1, maxItems: LIMITS.batch }) });

export const CreateTagsBody = batch(
  Type.Object({
    type: Type.Literal('tags'),
    attributes: Type.Object({ protocol, url, comment: Type.Optional(comment), session_duration: Type.Optional(sessionDuration) }),
  }),
);
const mutable = Type.Object({ url: Type.Optional(url), comment: Type.Optional(comment), session_duration: Type.Optional(sessionDuration) });
export const UpdateTagBody = Type.Object({ data: Type.Object({ type: Type.Literal('tags'), id: Type.Optional(Type.String()), attributes: mutable }) });
export const UpdateTagsBody = batch(Type.Object({ type: Type.Literal('tags'), id: Type.String(), attributes: mutable }));
export const DeleteTagsBody = batch(Type.Object({ type: Type.Literal('tags'), id: Type.String() }));
export const DeleteTagsResult = Type.Object({ meta: Type.Object({ deleted: Type.Array(Type.String()), kept: Type.Array(Type.String()) }) });
