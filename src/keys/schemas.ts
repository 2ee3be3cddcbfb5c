import { Type } from '@sinclair/typebox';
import { Timestamp, resourceOf } from '../http/schemas.js';
import { ATTRIBUTES } from './rules.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const KeyDocument = Type.Object({
  data: resourceOf(
    'keys',
    Type.Object({
      team_id: Type.String(),
      mode: Type.Union([Type.Literal('sandbox'), Type.Literal('production')]),
      role: ATTRIBUTES.role.schema,
      name: Nullable(Type.String()),
      created_at: Timestamp,
      expires_at: Type.Union([Timestamp, Type.Null()], { description: 'From then on the key is refused (401); null when it never expires' }),
      revoked_at: Type.Union([Timestamp, Type.Null()]),
      replaced_by: Type.Union([Type.String(), Type.Null()], { description: 'The key a roll made to replace this one' }),
      last_used_at: Type.Union([Timestamp, Type.Null()], {
        description: 'When the key last authenticated a request, to the minute (a later use within a minute is not written); null when never used',
      }),
      key: Type.Optional(Type.String({ description: 'tp_sandbox_… or tp_live_…: only in the answer that created or rolled the key, never again' })),
    }),
    'key_…',
  ),
});

export const KeyList = Type.Object({
  data: Type.Array(KeyDocument.properties.data, { description: "The team's keys of the caller's mode, oldest first, revoked ones included" }),
});

export const CreateKeyBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('keys'),
    attributes: Type.Object({
      role: ATTRIBUTES.role.schema,
      name: Type.Optional(ATTRIBUTES.name.schema),
      expires_at: Type.Optional(ATTRIBUTES.expires_at.schema),
    }),
  }),
});

export const RollKeyBody = Type.Object({
  data: Type.Object({ type: Type.Literal('keys'), attributes: Type.Object({ expires_in: Type.Optional(ATTRIBUTES.expires_in.schema) }) }),
});
