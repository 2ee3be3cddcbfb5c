import { Type } from '@sinclair/typebox';
import { Timestamp } from '../http/schemas.js';
import { ATTRIBUTES } from './documents.js';

const Reason = Type.Union([Type.Null(), Type.Object({ code: Type.String(), detail: Type.String() })], {
  description: 'Why the write failed (a personalization: also in the tag.configuration_failed payload)',
});

const Write = Type.Object({
  type: Type.Literal('writes'),
  id: Type.String(),
  attributes: Type.Object({
    tag_id: Type.String(),
    operation: Type.Union([Type.Literal('personalize'), Type.Literal('rekey')]),
    status: Type.Union([Type.Literal('running'), Type.Literal('configured'), Type.Literal('rekeyed'), Type.Literal('failed')], {
      description: 'configured: a personalization succeeded; rekeyed: a rekey did',
    }),
    step: Type.String(),
    apdus: Type.Array(Type.String(), { description: 'C-APDUs (hex) to send in order, stopping at the first error; empty once the write ended' }),
    reason: Reason,
    round_trips: Type.Integer(),
    expires_at: Type.String(),
    started_at: Type.String(),
    updated_at: Type.String({ description: 'The last round trip, or the end of the write' }),
  }),
});

export const WriteDocument = Type.Object({ data: Write });
export const WriteList = Type.Object({ data: Type.Array(Write, { description: 'Newest first, at most 100' }) });

// Composed from the rules that validate them (src/writer/documents.ts).
export const StartWriteBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('writes'),
    attributes: Type.Object({ tag_id: ATTRIBUTES.tag_id.schema, operation: Type.Optional(ATTRIBUTES.operation.schema) }),
  }),
});

/** The body of a tag.rekeyed delivery (src/writer/rekey.ts). */
export const TagRekeyedEvent = Type.Object(
  {
    type: Type.Literal('tag.rekeyed'),
    timestamp: Timestamp,
    data: Type.Unsafe({ $ref: '#/components/schemas/Tag' }),
    write_id: Type.String({ description: 'The write (wrt_…) that rekeyed the chip' }),
  },
  { title: 'tag.rekeyed' },
);

export const ResponsesBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('writes'),
    id: Type.Optional(Type.String()),
    attributes: Type.Object({
      responses: ATTRIBUTES.responses.schema,
      removed: Type.Optional(ATTRIBUTES.removed.schema),
      round_trip: Type.Optional(ATTRIBUTES.round_trip.schema),
      abort: Type.Optional(ATTRIBUTES.abort.schema),
    }),
  }),
});
