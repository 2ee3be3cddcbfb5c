// Assembles the Fastify app: infrastructure plugins first, then feature routes
// inside the platform API scope (JSON:API negotiation + bearer auth).
import Fastify, { type FastifyInstance } from 'fastify';
import { requestIdOf } from './http/request-id.js';
import { requestLogger, requestLogSerializers } from './http/request-log.js';
import type { AppContext } from './context.js';
import { installAuth } from './http/auth.js';
import { keyAuthentication } from './keys/feature.js';
import { followGenerations } from './master-keys/masters.js';
import { frameworkErrors, installErrorHandler } from './http/error-handler.js';
import { installExactMediaType, installJsonApi } from './http/jsonapi.js';
import { installOpenApi, referenceRoutes } from './http/openapi.js';
import { installConsole } from './http/console.js';
import { installUserAuth, sessionAuthentication } from './users/auth-routes/index.js';
import { probeDatabase } from './db/settings.js';
import { installRateLimit } from './http/rate-limit.js';
import { routeApp } from './http/route-app.js';
import { installArrivalOrder } from './verifications/arrival-order.js';
import { ErrorDocument } from './http/schemas.js';
import { Tag } from './tags/schemas.js';
import { extensionApi } from './extension/routes/index.js';
import { CLAIM_QUERY_MAX } from './extension/documents.js';
import { EXT_ANSWER_HEADERS } from './extension/http.js';
import { webhookOperations } from './webhooks/openapi.js';
import { CaseOpenedEvent, CaseUpdatedEvent } from './cases/index.js';
import { VerificationFlaggedEvent } from './verifications/schemas.js';
import { TagRekeyedEvent } from './writer/schemas.js';
import { platformRoutes } from './platform-routes.js';
import { installHttpMetrics, metricsRoute } from './metrics.js';

export interface BuildOptions {
  /** Pino logger options, or false for none (tests). */
  logger?: boolean | object;
}

// Largest legitimate body: 500 entries with 2 kB urls is ~1.2 MB.
const BODY_LIMIT = 4 * 1024 * 1024;
/**
 * Node cuts an overdue request only when it checks, every `connectionsCheckingInterval`: checking each
 * second against the timeout less that second keeps the real cut within the configured time
 * (docs/hardening.md, Server timeouts).
 */
function requestTimeouts(timeoutMs: number) {
  const interval = Math.min(1000, Math.floor(timeoutMs / 4));
  return { headersTimeout: timeoutMs - interval, requestTimeout: timeoutMs - interval, connectionsCheckingInterval: interval };
}

export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = ctx;
  const surfaces = { extPrefix: config.extPrefix, extHeaders: EXT_ANSWER_HEADERS };
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'], serializers: requestLogSerializers },
    // Fastify accepts a hop count too; its types only list the other forms.
    trustProxy: config.trustProxy as boolean | string[],
    bodyLimit: BODY_LIMIT,
    // The client's X-Request-Id only when short printable ASCII (src/http/request-id.ts); it goes into every log line.
    requestIdHeader: false,
    genReqId: requestIdOf,
    // A request's pino child is made when it first writes a line (src/http/request-log.ts).
    childLoggerFactory: requestLogger,
    // A body that trickles in (or never completes) releases its connection within the timeout (docs/hardening.md).
    requestTimeout: requestTimeouts(config.requestTimeoutMs).requestTimeout,
    // Node's 16 kB request head, plus the longest claim list query the contract allows (docs/extension.md).
    http: { ...requestTimeouts(config.requestTimeoutMs), maxHeaderSize: 16 * 1024 + CLAIM_QUERY_MAX },
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // Extension verification ids run to VRF_ + 128 characters (docs/api.md), and a longer path id is just an
    // unknown id (404 from its route), not Fastify's own 414 body; Node's 16 kB header limit bounds it.
    routerOptions: { maxParamLength: 16 * 1024 },
    frameworkErrors: frameworkErrors(surfaces),
  });
  // Bodies are read by each feature's document reader (400 vs 422); schemas only document and serialize.
  app.setValidatorCompiler(() => () => true);
  app.addSchema(ErrorDocument);
  app.addSchema(Tag);
  installErrorHandler(app, surfaces);
  const { metrics } = ctx;
  // At the root before any route, so that every route (and 404s) is counted.
  installHttpMetrics(app, metrics);
  // First onRequest hook: scans are ticketed on receipt, before anything that may wait (docs/throughput.md).
  installArrivalOrder(app, ctx.arrival);
  installExactMediaType(app);
  // Echo the id the logs carry, so a client can quote it (theirs if acceptable, else ours).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  // Not ready without the database. A Redis that is down only makes the limiter
  // count per process (src/http/rate-limit.ts), so the server stays ready and says
  // "degraded": taking every server out of rotation would turn a Redis outage into an API outage.
  // A server without the current master key generation keeps serving what the older ones derive and
  // open, and says so here ("degraded"): new chips and secrets of that mode are refused until it has it.
  app.get('/readyz', async (_request, reply) => {
    const redis = limiter.redis();
    const extra = redis === null ? {} : { redis };
    try {
      await probeDatabase(ctx.db.kysely);
      const lacking = await ctx.masters.lacking();
      const masters = lacking.length === 0 ? {} : { lacking_master_keys: lacking };
      return { status: redis === 'down' || lacking.length > 0 ? 'degraded' : 'ok', database: 'ok', ...extra, ...masters };
    } catch {
      return reply.code(503).send({ status: 'unavailable', database: 'down', ...extra });
    }
  });

  // Rotations, rewraps and retirements by other processes reach this one while it runs.
  app.addHook('onClose', followGenerations(ctx));

  const limiter = await installRateLimit(app, {
    perMinute: config.rateLimit,
    redisUrl: config.redisUrl,
    redisPrefix: config.redisPrefix,
    exempt: ['/healthz', '/readyz', '/metrics'],
    onRejected: () => metrics.rateLimited.inc(),
  });
  // Outside the API prefix and the limiter: a scraper polling every few seconds must never be refused.
  metricsRoute(app, metrics, config.metricsToken);
  await installOpenApi(app, config.apiPrefix, config.extPrefix, {
    webhooks: webhookOperations({
      'verification.flagged': VerificationFlaggedEvent,
      'tag.rekeyed': TagRekeyedEvent,
      'case.opened': CaseOpenedEvent,
      'case.updated': CaseUpdatedEvent,
    }),
  });
  // The operator console's static files and pages (docs/console.md); it reads the API like any client.
  await installConsole(app);
  // People signing in to the console (docs/users.md): its sessions are a credential of the API below too.
  await installUserAuth(app, ctx);

  await app.register(
    async (api) => {
      // Public and plain JSON/HTML: the API's own description needs no key.
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      referenceRoutes(api, config.apiPrefix);
      await api.register(async (secured) => {
        installJsonApi(secured);
        installAuth(secured, { ...keyAuthentication(ctx), session: sessionAuthentication(ctx) });
        for (const routes of platformRoutes) routes(routeApp(secured), ctx);
      });
    },
    { prefix: config.apiPrefix },
  );
  await extensionApi(app, ctx);
  return app;
}
