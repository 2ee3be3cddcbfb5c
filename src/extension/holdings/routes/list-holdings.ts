import type { Kernel } from '../../../kernel.js';
import type { RouteApp } from '../../../http/route-app.js';
import { IdParam } from '../../../http/schemas.js';
import { wholeListRoute } from '../../../http/whole-list.js';
import { renderHolding } from '../../catalog/serializer.js';
import { HoldingList } from '../schemas.js';
import { listTokenHoldings } from '../service.js';

export default function listHoldingsRoute(app: RouteApp, ctx: Kernel): void {
  wholeListRoute(app, {
    path: '/tokens/:id/holdings',
    access: 'read',
    summary: 'List who holds a token in the embedded holdings table',
    description: 'The table the embedded holdings provider answers from (always in the sandbox; in production unless a chain provider is configured).',
    operationId: 'listHoldings',
    tag: 'catalog',
    params: IdParam,
    list: HoldingList,
    holds: "The token's holdings.",
    errors: [400, 401, 404, 406, 429],
    data: async (principal, { id }) => (await listTokenHoldings(ctx, principal, id)).map(renderHolding),
  });
}
