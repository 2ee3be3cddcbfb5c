import { Type } from '@sinclair/typebox';
import { Timestamp, resourceOf } from '../../http/schemas.js';

const Chain = Type.Union([Type.Literal('cardano'), Type.Literal('ethereum')]);

export const OwnershipProofList = Type.Object({
  data: Type.Array(
    resourceOf(
      'ownership-proofs',
      Type.Object({
        verification_id: Type.String({ description: 'The verification (vrf_…)' }),
        chain: Chain,
        wallet_address: Type.String({ description: 'Cardano bech32; Ethereum EIP-55' }),
        token_id: Type.String({ description: 'The token the wallet was found to hold (tok_…)' }),
        verified_at: Timestamp,
        replaced_at: Type.Union([Timestamp, Type.Null()], { description: 'When a later proof took the ownership over; null for the current owner' }),
      }),
      "The proof result's request_id",
    ),
  ),
  meta: Type.Object({ total_count: Type.Integer() }),
});
