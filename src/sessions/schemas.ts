import { Type } from '@sinclair/typebox';
import { Timestamp, resourceOf } from '../http/schemas.js';

export const SessionDocument = Type.Object({
  data: resourceOf(
    'sessions',
    Type.Object({
      status: Type.Union([Type.Literal('open'), Type.Literal('completed'), Type.Literal('expired')]),
      tag_id: Type.String(),
      opened_at: Timestamp,
      expires_at: Timestamp,
      verification_ids: Type.Array(Type.String(), { description: 'The genuine scans in the session, oldest first' }),
    }),
    'Prefix ses_',
  ),
});
