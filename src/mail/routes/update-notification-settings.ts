import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { readSettingsDocument } from '../documents.js';
import { NotificationSettingsDocument, UpdateNotificationSettingsBody } from '../schemas.js';
import { renderSettings } from '../serializer.js';
import { changeNotificationSettings } from '../settings.js';

export default function updateNotificationSettingsRoute(app: RouteApp, ctx: Kernel) {
  app.patch('/profile/notifications', {
    config: { access: 'read', reach: 'self' },
    schema: {
      summary: 'Choose what the signed-in person is emailed: case openings, a daily digest, and whether the sandbox counts',
      operationId: 'updateNotificationSettings',
      tags: ['profile'],
      body: UpdateNotificationSettingsBody,
      response: {
        200: answer('Their choices as they are now.', NotificationSettingsDocument),
        ...errorResponses(400, 401, 403, 406, 413, 415, 422, 429),
      },
    },
    handler: async (request, reply) => {
      const attributes = readSettingsDocument(request.body, request.principal.id);
      return sendDocument(reply, 200, { data: renderSettings(await changeNotificationSettings(ctx, request.principal, attributes)) });
    },
  });
}
