import { Type } from '@sinclair/typebox';
import { Timestamp, resourceOf } from '../http/schemas.js';
import { THRESHOLDS_RULE, ThresholdsSchema } from '../signals/index.js';

export const TeamDocument = Type.Object({
  data: resourceOf(
    'teams',
    Type.Object({
      name: Type.String(),
      parent_id: Type.Union([Type.String(), Type.Null()]),
      created_at: Timestamp,
      signal_thresholds: Type.Intersect([ThresholdsSchema], {
        description: "The counterfeit signals' thresholds of the key's mode (docs/signals.md); the defaults until changed",
      }),
    }),
    'team_…',
  ),
});

export const UpdateTeamBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('teams'),
    id: Type.Optional(Type.String()),
    attributes: Type.Object({ signal_thresholds: Type.Optional(THRESHOLDS_RULE.schema) }),
  }),
});
