import type { RouteApp } from '../../http/route-app.js';
import type { Kernel } from '../../kernel.js';
import type { MastersState } from '../../master-keys/index.js';
import { wholeListRoute } from '../../http/whole-list.js';
import { WebhookList } from '../schemas.js';
import { renderWebhook } from '../serializer.js';
import { listWebhooks } from '../service.js';

export default function listWebhooksRoute(app: RouteApp, ctx: Kernel & MastersState) {
  wholeListRoute(app, {
    path: '/webhooks',
    access: 'read',
    summary: "List the world's webhooks (never a secret)",
    operationId: 'listWebhooks',
    tag: 'webhooks',
    list: WebhookList,
    holds: "The world's webhooks.",
    errors: [400, 401, 406, 429],
    data: async (principal) => {
      const now = ctx.clock.nowMicros();
      return (await listWebhooks(ctx, principal)).map((row) => renderWebhook(row, now));
    },
  });
}
