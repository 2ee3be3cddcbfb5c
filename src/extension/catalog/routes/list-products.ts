import type { Kernel } from '../../../kernel.js';
import type { RouteApp } from '../../../http/route-app.js';
import { wholeListRoute } from '../../../http/whole-list.js';
import { ProductList } from '../schemas.js';
import { renderProduct } from '../serializer.js';
import { listProducts } from '../service.js';

export default function listProductsRoute(app: RouteApp, ctx: Kernel): void {
  wholeListRoute(app, {
    path: '/products',
    access: 'read',
    summary: "List the world's products",
    description: 'The products a tag can be linked to: what its verifications show on the extension API.',
    operationId: 'listProducts',
    tag: 'catalog',
    list: ProductList,
    holds: "The world's products.",
    errors: [400, 401, 406, 429],
    data: async (principal) => (await listProducts(ctx, principal)).map(renderProduct),
  });
}
