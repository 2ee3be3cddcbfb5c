import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import createWebhook from './create-webhook.js';
import deleteWebhook from './delete-webhook.js';
import getWebhook from './get-webhook.js';
import updateWebhook from './update-webhook.js';

export function webhookRoutes(app: FastifyInstance, ctx: AppContext): void {
  for (const route of [createWebhook, getWebhook, updateWebhook, deleteWebhook]) route(app, ctx);
}
