import { callerOf } from '../../../http/auth.js';
import type { Kernel } from '../../../kernel.js';
import type { RouteApp } from '../../../http/route-app.js';
import { sendDocument } from '../../../http/jsonapi.js';
import { answer, errorResponses } from '../../../http/schemas.js';
import { readCreateDocument } from '../documents.js';
import { CreateProductBody, ProductDocument } from '../schemas.js';
import { renderProduct } from '../serializer.js';
import { insertProduct } from '../service.js';

export default function createProductRoute(app: RouteApp, ctx: Kernel): void {
  app.post('/products', {
    config: { access: 'write' },
    schema: {
      summary: 'Create a product',
      description: "A product of the key's team and mode (as `tapproof products create`).",
      operationId: 'createProduct',
      tags: ['catalog'],
      body: CreateProductBody,
      response: { 201: answer('Created: the product.', ProductDocument), ...errorResponses(400, 401, 406, 413, 415, 422, 429) },
    },
    handler: async (request, reply) => {
      const row = await insertProduct(ctx, callerOf(request), readCreateDocument(request.body, 'products', ['name']));
      return sendDocument(reply, 201, { data: renderProduct(row) });
    },
  });
}
