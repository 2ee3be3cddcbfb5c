// Assembles the Fastify app: infrastructure plugins first, then feature routes
// inside the platform API scope (JSON:API negotiation + bearer auth).
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';
import { installAuth } from './http/auth.js';
import { installErrorHandler } from './http/error-handler.js';
import { installExactMediaType, installJsonApi } from './http/jsonapi.js';
import { installOpenApi, renderReferencePage } from './http/openapi.js';
import { installRateLimit } from './http/rate-limit.js';
import { ErrorDocument } from './http/schemas.js';
import { keyRoutes } from './keys/routes.js';
import { tagRoutes } from './tags/routes/index.js';
import { Tag } from './tags/schemas.js';
import { teamRoutes } from './teams/routes.js';
import { verificationRoutes } from './verifications/routes/index.js';
import { webhookRoutes } from './webhooks/routes/index.js';

/** Feature modules that add platform routes (webhooks, verifications, …) register here. */
export type RouteModule = (app: FastifyInstance, ctx: AppContext) => void;
const platformRoutes: RouteModule[] = [tagRoutes, teamRoutes, keyRoutes, webhookRoutes, verificationRoutes];

export interface BuildOptions {
  /** Pino logger options, or false for none (tests). */
  logger?: boolean | object;
}

// Largest legitimate body: 500 entries with 2 kB urls is ~1.2 MB.
const BODY_LIMIT = 4 * 1024 * 1024;

export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = ctx;
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] },
    // Fastify accepts a hop count too; its types only list the other forms.
    trustProxy: config.trustProxy as boolean | string[],
    bodyLimit: BODY_LIMIT,
    requestIdHeader: 'x-request-id',
    forceCloseConnections: 'idle',
    return503OnClosing: true,
  });
  // Bodies are read by each feature's document reader (400 vs 422); schemas only document and serialize.
  app.setValidatorCompiler(() => () => true);
  app.addSchema(ErrorDocument);
  app.addSchema(Tag);
  installErrorHandler(app, { extPrefix: config.extPrefix });
  installExactMediaType(app);

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await ctx.db.kysely.selectFrom('settings').select('name').limit(1).execute();
      return { status: 'ok' };
    } catch {
      return reply.code(503).send({ status: 'unavailable' });
    }
  });

  await installRateLimit(app, { perMinute: config.rateLimit, redisUrl: config.redisUrl, exempt: ['/healthz', '/readyz'] });
  await installOpenApi(app, config.apiPrefix);

  await app.register(
    async (api) => {
      // Public and plain JSON/HTML: the API's own description needs no key.
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      api.get('/docs', { schema: { hide: true } }, async (_request, reply) =>
        reply.type('text/html; charset=utf-8').send(renderReferencePage(app.swagger() as never, config.apiPrefix)),
      );
      await api.register(async (secured) => {
        installJsonApi(secured);
        installAuth(secured, ctx);
        for (const routes of platformRoutes) routes(secured, ctx);
      });
    },
    { prefix: config.apiPrefix },
  );
  return app;
}
