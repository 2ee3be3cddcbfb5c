// Every operation of the platform API, one file each, in the order the OpenAPI
// document lists them. A new route is added here and to the route table of the
// tests (test/http/routes.ts), whose security matrix fails for a route missing there.
import type { AppContext } from './context.js';
import type { RouteApp } from './http/route-app.js';
import createTags from './tags/routes/create-tags.js';
import deleteTag from './tags/routes/delete-tag.js';
import deleteTags from './tags/routes/delete-tags.js';
import getTag from './tags/routes/get-tag.js';
import getTagChip from './tag-chips/routes/get-tag-chip.js';
import getTagLinks from './extension/catalog/routes/get-tag-links.js';
import listTagWrites from './writer/routes/list-tag-writes.js';
import listTags from './tags/routes/list-tags.js';
import updateTag from './tags/routes/update-tag.js';
import updateTags from './tags/routes/update-tags.js';
import getTeam from './teams/routes/get-team.js';
import getCurrentTeam from './teams/routes/get-current-team.js';
import updateCurrentTeam from './teams/routes/update-current-team.js';
import getKey from './keys/routes/get-key.js';
import listKeys from './keys/routes/list-keys.js';
import createWebhook from './webhooks/routes/create-webhook.js';
import deleteWebhook from './webhooks/routes/delete-webhook.js';
import getWebhook from './webhooks/routes/get-webhook.js';
import listWebhooks from './webhooks/routes/list-webhooks.js';
import listDeliveries from './webhooks/routes/list-deliveries.js';
import redeliver from './webhooks/routes/redeliver.js';
import updateWebhook from './webhooks/routes/update-webhook.js';
import createVerification from './verifications/routes/create-verification.js';
import getVerification from './verifications/routes/get-verification.js';
import listOwnershipProofs from './extension/ownership-proofs/routes/list-ownership-proofs.js';
import listVerifications from './verifications/routes/list-verifications.js';
import verificationStats from './verifications/routes/verification-stats.js';
import getSession from './sessions/routes/get-session.js';
import startWrite from './writer/routes/start-write.js';
import postResponses from './writer/routes/post-responses.js';
import getWrite from './writer/routes/get-write.js';

export type RouteModule = (app: RouteApp, ctx: AppContext) => void;

export const platformRoutes: readonly RouteModule[] = [
  createTags,
  getTag,
  getTagChip,
  getTagLinks,
  listTags,
  updateTag,
  updateTags,
  deleteTag,
  deleteTags,
  getCurrentTeam,
  updateCurrentTeam,
  getTeam,
  listKeys,
  getKey,
  createWebhook,
  listWebhooks,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  listDeliveries,
  redeliver,
  createVerification,
  listVerifications,
  verificationStats,
  getVerification,
  listOwnershipProofs,
  getSession,
  // Remote personalization (docs/writer.md), authenticated with the key of the tag's team and mode.
  startWrite,
  postResponses,
  getWrite,
  listTagWrites,
];
