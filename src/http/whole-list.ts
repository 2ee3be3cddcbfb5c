// A list the API answers whole, without pages or filters: what a world holds a handful of (its keys,
// webhooks, products, tokens, a token's holdings; a team's users). It takes no query parameter, so
// any is a 400 naming it rather than a filter silently ignored.
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { Principal } from '../world.js';
import type { Access, Reach } from './access.js';
import { sendDocument, type ResourceObject } from './jsonapi.js';
import { refuseUnknown } from './query.js';
import type { RouteApp } from './route-app.js';
import { answer, errorResponses } from './schemas.js';

export interface WholeList<P extends TObject> {
  path: string;
  access: Access;
  reach?: Reach;
  summary: string;
  description?: string;
  operationId: string;
  tag: string;
  /** The path's parameters (`/tokens/:id/holdings`). */
  params?: P;
  /** The document's schema and what the list holds, for the OpenAPI document. */
  list: TSchema;
  holds: string;
  /** The error statuses the OpenAPI document names. */
  errors: number[];
  /** The list's resource objects, as the caller sees them. */
  data(principal: Principal, params: Static<P>): Promise<ResourceObject<unknown>[]>;
}

export function wholeListRoute<P extends TObject>(app: RouteApp, list: WholeList<P>): void {
  app.get(list.path, {
    config: { access: list.access, ...(list.reach && { reach: list.reach }) },
    schema: {
      summary: list.summary,
      ...(list.description !== undefined && { description: list.description }),
      operationId: list.operationId,
      tags: [list.tag],
      ...(list.params && { params: list.params }),
      response: { 200: answer(list.holds, list.list), ...errorResponses(...list.errors) },
    },
    handler: async (request, reply) => {
      refuseUnknown(request.query as Record<string, unknown>, []);
      return sendDocument(reply, 200, { data: await list.data(request.principal, request.params as Static<P>) });
    },
  });
}
