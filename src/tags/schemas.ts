import { Type } from '@sinclair/typebox';
import { Timestamp } from '../http/schemas.js';
import { ORDER_FIELDS } from './repository.js';
import { LIMITS, PROTOCOLS } from './rules.js';

const protocol = Type.Union(PROTOCOLS.map((p) => Type.Literal(p)));
const url = Type.String({ minLength: 1, description: `Written to the chip as given; at most ${LIMITS.urlBytes} bytes. Unique per team and mode.` });
const comment = Type.Union([Type.String({ maxLength: LIMITS.commentLength }), Type.Null()]);
const sessionDuration = Type.Integer({ minimum: LIMITS.sessionDuration.min, maximum: LIMITS.sessionDuration.max, default: LIMITS.sessionDuration.default });

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

export const ListQuerySchema = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, default: LIMITS.pageSize.default, description: `Values above ${LIMITS.pageSize.max} yield ${LIMITS.pageSize.max}` })),
  q: Type.Optional(Type.String({ description: 'Substring of the comment, compared after NFKC and full Unicode case folding on both sides (ß = ss, K = k; accents count), or an exact tag id' })),
  'order_by[]': Type.Optional(Type.Array(Type.Union(ORDER_FIELDS.map((f) => Type.Literal(f))))),
  'order_directions[]': Type.Optional(Type.Array(Type.Union([Type.Literal('asc'), Type.Literal('desc')]))),
});

