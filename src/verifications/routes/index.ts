import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { sessionRoutes } from '../../sessions/routes.js';
import createVerification from './create-verification.js';
import getVerification from './get-verification.js';

/** POST /verifications, GET /verifications/:id and GET /sessions/:id. */
export function verificationRoutes(app: FastifyInstance, ctx: AppContext): void {
  for (const route of [createVerification, getVerification, sessionRoutes]) route(app, ctx);
}
