import { Type } from '@sinclair/typebox';
import { Timestamp, resourceOf } from '../http/schemas.js';
import { ATTRIBUTES } from './rules.js';

export const UserDocument = Type.Object({
  data: resourceOf(
    'users',
    Type.Object({
      team_id: Type.String(),
      email: Type.String(),
      role: ATTRIBUTES.role.schema,
      created_at: Timestamp,
      disabled_at: Type.Union([Timestamp, Type.Null()]),
      last_sign_in_at: Type.Union([Timestamp, Type.Null()]),
      password: Type.Boolean({ description: 'Whether the user has set a password' }),
      passkeys: Type.Integer({ description: 'How many passkeys the user has registered' }),
      single_sign_on: Type.Boolean({ description: 'Whether a single sign-on identity is bound to the user' }),
      link: Type.Optional(
        Type.Object(
          {
            url: Type.Union([Type.String(), Type.Null()], { description: 'The link; null when it was emailed' }),
            expires_at: Type.Union([Timestamp, Type.Null()], { description: 'Null when it was emailed (it lasts 72 hours from the mail)' }),
            emailed_to: Type.Union([Type.String(), Type.Null()], { description: 'Where the server emails it (docs/email.md), or null: hand it over yourself' }),
          },
          {
            description:
              'The one-time link (invite or reset), only in the answer that made it: hand it to the user, or, when the server sends email, it is emailed instead; it works once, for 72 hours',
          },
        ),
      ),
    }),
    'usr_…',
  ),
});

export const UserList = Type.Object({ data: Type.Array(UserDocument.properties.data, { description: "The team's users, by email" }) });

export const InviteUserBody = Type.Object({
  data: Type.Object({ type: Type.Literal('users'), attributes: Type.Object({ email: ATTRIBUTES.email.schema, role: ATTRIBUTES.role.schema }) }),
});

export const UpdateUserBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('users'),
    id: Type.Optional(Type.String()),
    attributes: Type.Object({ role: Type.Optional(ATTRIBUTES.role.schema), disabled: Type.Optional(ATTRIBUTES.disabled.schema) }),
  }),
});
