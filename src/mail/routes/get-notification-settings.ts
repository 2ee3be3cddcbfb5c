import type { Kernel } from '../../kernel.js';
import type { RouteApp } from '../../http/route-app.js';
import { sendDocument } from '../../http/jsonapi.js';
import { answer, errorResponses } from '../../http/schemas.js';
import { NotificationSettingsDocument } from '../schemas.js';
import { renderSettings } from '../serializer.js';
import { notificationSettings } from '../settings.js';

export default function getNotificationSettingsRoute(app: RouteApp, ctx: Kernel) {
  app.get('/profile/notifications', {
    config: { access: 'read', reach: 'self' },
    schema: {
      summary: 'What the signed-in person is emailed, and whether this server sends email',
      operationId: 'getNotificationSettings',
      tags: ['profile'],
      response: { 200: answer('Their choices; all false until they choose.', NotificationSettingsDocument), ...errorResponses(401, 403, 406, 429) },
    },
    handler: async (request, reply) => sendDocument(reply, 200, { data: renderSettings(await notificationSettings(ctx, request.principal)) }),
  });
}
