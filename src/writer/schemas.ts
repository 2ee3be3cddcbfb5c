import { Type } from '@sinclair/typebox';

const Reason = Type.Union([Type.Null(), Type.Object({ code: Type.String(), detail: Type.String() })], { description: 'Why the write failed (also in the tag.configuration_failed payload)' });

export const WriteDocument = Type.Object({
  data: Type.Object({
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
    }),
  }),
});

export const StartWriteBody = Type.Object({
  data: Type.Object({ type: Type.Literal('writes'), attributes: Type.Object({ tag_id: Type.String() }) }),
});

export const ResponsesBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('writes'),
    id: Type.Optional(Type.String()),
    attributes: Type.Object({
      responses: Type.Array(Type.String(), { description: 'R-APDUs (hex), one per C-APDU sent' }),
      removed: Type.Optional(Type.Boolean({ description: 'the card left the reader: the write fails (chip_removed)' })),
      round_trip: Type.Optional(Type.Integer({ minimum: 0, description: 'the round_trips value of the write these answers are for: a stale or repeated delivery gets 409' })),
      abort: Type.Optional(Type.Boolean({ description: 'the writer gives up: the write fails (aborted)' })),
    }),
  }),
});
