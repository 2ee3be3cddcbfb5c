import { Type } from '@sinclair/typebox';
import { Timestamp, resourceOf } from '../../http/schemas.js';

export const VerificationClaimList = Type.Object({
  data: Type.Array(
    resourceOf(
      'claims',
      Type.Object({
        resource_url: Type.String({ description: 'The page the verification was claimed on' }),
        note: Type.Union([Type.String(), Type.Null()], { description: "The claimant's note; null without one" }),
        created_at: Timestamp,
      }),
      "The claim's id (the UUID POST /claims answered)",
    ),
  ),
  meta: Type.Object({ total_count: Type.Integer({ description: "All the verification's claims, the ones not listed included" }) }),
});
