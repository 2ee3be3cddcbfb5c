// Every operation of the platform API: each feature's routes, in the order the OpenAPI document lists
// them. A new route is added to its feature's list and to the route table of the tests
// (test/http/routes.ts), whose security matrix fails for a route missing there.
import type { AppContext } from './context.js';
import type { RouteApp } from './http/route-app.js';
import { extensionPlatformRoutes } from './extension/platform-routes.js';
import { caseRoutes } from './cases/routes/index.js';
import { keyRoutes } from './keys/routes/index.js';
import { profileRoutes } from './mail/routes/index.js';
import { auditRoutes } from './audit/routes/index.js';
import { userRoutes } from './users/routes/index.js';
import { sessionRoutes } from './sessions/routes/index.js';
import { tagChipRoutes } from './tag-chips/routes/index.js';
import { tagRoutes } from './tags/routes/index.js';
import { teamRoutes } from './teams/routes/index.js';
import { verificationRoutes } from './verifications/routes/index.js';
import { webhookRoutes } from './webhooks/routes/index.js';
import { writerRoutes } from './writer/routes/index.js';

export type RouteModule = (app: RouteApp, ctx: AppContext) => void;

export const platformRoutes: readonly RouteModule[] = [
  ...tagRoutes,
  ...tagChipRoutes,
  ...teamRoutes,
  ...keyRoutes,
  ...userRoutes,
  ...profileRoutes,
  ...auditRoutes,
  ...webhookRoutes,
  ...verificationRoutes,
  ...caseRoutes,
  ...sessionRoutes,
  ...writerRoutes,
  ...extensionPlatformRoutes,
];
