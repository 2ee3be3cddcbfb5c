import type { Kernel } from '../../../kernel.js';
import type { RouteApp } from '../../../http/route-app.js';
import { wholeListRoute } from '../../../http/whole-list.js';
import { TokenList } from '../schemas.js';
import { renderToken } from '../serializer.js';
import { listTokens } from '../service.js';

export default function listTokensRoute(app: RouteApp, ctx: Kernel): void {
  wholeListRoute(app, {
    path: '/tokens',
    access: 'read',
    summary: "List the world's tokens",
    description: 'The tokens a tag can be linked to: its owner proves holding one on the extension API.',
    operationId: 'listTokens',
    tag: 'catalog',
    list: TokenList,
    holds: "The world's tokens.",
    errors: [400, 401, 406, 429],
    data: async (principal) => (await listTokens(ctx, principal)).map(renderToken),
  });
}
