// The app as a route module sees it: request params and querystrings typed from the
// route's TypeBox schemas. Only the types come from there; bodies and querystrings are
// read and checked by each feature's own reader (src/app.ts turns schema validation off).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';

export type RouteApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

export const routeApp = (app: FastifyInstance): RouteApp => app.withTypeProvider<TypeBoxTypeProvider>();
