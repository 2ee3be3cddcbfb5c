import { Type } from '@sinclair/typebox';
import { Timestamp, resourceOf } from '../http/schemas.js';

export const KeyDocument = Type.Object({
  data: resourceOf(
    'keys',
    Type.Object({
      team_id: Type.String(),
      mode: Type.Union([Type.Literal('sandbox'), Type.Literal('production')]),
      created_at: Timestamp,
      revoked_at: Type.Union([Timestamp, Type.Null()]),
      last_used_at: Type.Union([Timestamp, Type.Null()], {
        description: 'When the key last authenticated a request, to the minute (a later use within a minute is not written); null when never used',
      }),
    }),
    'key_…',
  ),
});

export const KeyList = Type.Object({
  data: Type.Array(KeyDocument.properties.data, { description: "The team's keys of the caller's mode, oldest first, revoked ones included" }),
});
