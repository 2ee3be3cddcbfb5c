import { Type } from '@sinclair/typebox';
import { Timestamp, resourceOf } from '../http/schemas.js';

export const TeamDocument = Type.Object({
  data: resourceOf('teams', Type.Object({ name: Type.String(), parent_id: Type.Union([Type.String(), Type.Null()]), created_at: Timestamp }), 'team_…'),
});
