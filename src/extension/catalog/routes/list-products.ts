import type { Kernel } from '../../../kernel.js';
import type { RouteApp } from '../../../http/route-app.js';
import { sendDocument } from '../../../http/jsonapi.js';
import { refuseUnknown } from '../../../http/query.js';
import { answer, errorResponses } from '../../../http/schemas.js';
import { ProductList } from '../schemas.js';
import { renderProduct } from '../serializer.js';
import { listProducts } from '../service.js';

export default function listProductsRoute(app: RouteApp, ctx: Kernel): void {
  app.get('/products', {
    config: { access: 'read' },
    schema: {
      summary: "List the world's products",
      description: 'The products a tag can be linked to: what its verifications show on the extension API.',
      operationId: 'listProducts',
      tags: ['catalog'],
      response: { 200: answer("The world's products.", ProductList), ...errorResponses(400, 401, 406, 429) },
    },
    handler: async (request, reply) => {
      refuseUnknown(request.query as Record<string, unknown>, []);
      return sendDocument(reply, 200, { data: (await listProducts(ctx, request.principal)).map(renderProduct) });
    },
  });
}
