import { Type } from '@sinclair/typebox';
import { Timestamp, resourceOf } from '../http/schemas.js';

const oneOf = (...values: string[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const ChipDocument = Type.Object({
  data: resourceOf(
    'chips',
    Type.Object({
      protocol: oneOf('ntag_424_dna', 'ntag_424_dna_tag_tamper', 'ntag_223_dna'),
      uid: Type.String({ description: '7-byte UID bound at the write or import, 14 upper-case hex digits' }),
      crypto: oneOf('aes', 'lrp'),
      mirroring: oneOf('encrypted', 'plain', 'sun'),
      key_source: oneOf('derived', 'imported'),
      key_version: Type.Integer(),
      write_generation: Type.Integer({ description: 'Starts at 1; a rewrite of the tag starts a new generation (and a new counter)' }),
      last_counter: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Last accepted SDMReadCtr of this generation; null before the first genuine scan',
      }),
      bound_at: Timestamp,
    }),
    "The tag's id (a chip is bound to one tag)",
  ),
});
