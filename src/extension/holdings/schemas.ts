// The `holdings` resource of the platform API: who holds a catalog token, for the embedded provider.
import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../http/schemas.js';

export const Holding = Type.Object(
  {
    type: Type.Literal('holdings'),
    id: Type.String({ description: 'The wallet address: bech32 (Cardano) or EIP-55 (Ethereum)' }),
    attributes: Type.Object({
      token_id: Type.String({ description: 'tok_…' }),
      quantity: Type.String({ description: 'A whole number of at least 1, decimal (a uint256 may exceed what JSON numbers hold)' }),
      updated_at: Timestamp,
    }),
  },
  { title: 'Holding' },
);

export const HoldingDocument = Type.Object({ data: Holding });
export const HoldingList = Type.Object({ data: Type.Array(Holding, { description: 'By address' }) });

export const CreateHoldingBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('holdings'),
    attributes: Type.Object({
      address: Type.String({ description: "A wallet address of the token's chain" }),
      quantity: Type.Optional(
        Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[1-9][0-9]{0,77}$' })], { description: 'How many units it holds; 1 when left out' }),
      ),
    }),
  }),
});

export const HoldingParams = Type.Object({ id: Type.String(), address: Type.String() });
