// Webhooks, their deliveries and redelivery.
import createWebhook from './create-webhook.js';
import listWebhooks from './list-webhooks.js';
import getWebhook from './get-webhook.js';
import updateWebhook from './update-webhook.js';
import deleteWebhook from './delete-webhook.js';
import listDeliveries from './list-deliveries.js';
import redeliver from './redeliver.js';
import createTestEvent from './create-test-event.js';

export const webhookRoutes = [createWebhook, listWebhooks, getWebhook, updateWebhook, deleteWebhook, listDeliveries, redeliver, createTestEvent] as const;
