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
    }),
    'key_…',
  ),
});
