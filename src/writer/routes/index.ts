import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import getWrite from './get-write.js';
import postResponses from './post-responses.js';
import startWrite from './start-write.js';

/** Remote personalization (issue #8), authenticated with the key of the tag's team and mode. */
export function writerRoutes(app: FastifyInstance, ctx: AppContext): void {
  for (const route of [startWrite, postResponses, getWrite]) route(app, ctx);
}
