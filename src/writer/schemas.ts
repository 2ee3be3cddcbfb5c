import { Type } from '@sinclair/typebox';
import { ATTRIBUTES } from './documents.js';

const Reason = Type.Union([Type.Null(), Type.Object({ code: Type.String(), detail: Type.String() })], {
  description: 'Why the write failed (also in the tag.configuration_failed payload)',
});

const Write = Type.Object({
  type: Type.Literal('writes'),
  id: Type.String(),
  attributes: Type.Object({
    tag_id: Type.String(),
    status: Type.Union([Type.Literal('running'), Type.Literal('configured'), Type.Literal('failed')]),
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
  data: Type.Object({ type: Type.Literal('writes'), attributes: Type.Object({ tag_id: ATTRIBUTES.tag_id.schema }) }),
});

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
