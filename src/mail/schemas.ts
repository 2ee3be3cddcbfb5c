import { Type } from '@sinclair/typebox';
import { resourceOf } from '../http/schemas.js';

const Choices = {
  case_opened: Type.Boolean({ description: 'Email me when a case opens (production; the sandbox too with `sandbox`)' }),
  daily_digest: Type.Boolean({ description: 'Email me a daily digest: open cases, opened and resolved in the last 24 hours' }),
  sandbox: Type.Boolean({ description: "Also the sandbox's cases, in both mails" }),
};

export const NotificationSettings = Type.Object(
  {
    ...resourceOf(
      'notification-settings',
      Type.Object({
        ...Choices,
        email_off: Type.Union([Type.String(), Type.Null()], { description: 'Null when this server sends email; else why it does not' }),
        digest_hour: Type.Union([Type.Integer({ minimum: 0, maximum: 23 }), Type.Null()], {
          description: 'The hour (UTC) the digest is sent at, covering the 24 hours before it; null when email is off',
        }),
      }),
      "The signed-in person's id (usr_…)",
    ).properties,
  },
  { title: 'NotificationSettings' },
);

export const NotificationSettingsDocument = Type.Object({ data: NotificationSettings });

export const UpdateNotificationSettingsBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('notification-settings'),
    id: Type.Optional(Type.String()),
    attributes: Type.Partial(Type.Object(Choices)),
  }),
});
