import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import createTags from './create-tags.js';
import deleteTag from './delete-tag.js';
import deleteTags from './delete-tags.js';
import getTag from './get-tag.js';
import listTags from './list-tags.js';
import updateTag from './update-tag.js';
import updateTags from './update-tags.js';

export function tagRoutes(app: FastifyInstance, ctx: AppContext): void {
  for (const route of [createTags, getTag, listTags, updateTag, updateTags, deleteTag, deleteTags]) route(app, ctx);
}
