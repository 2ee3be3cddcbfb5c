// The tags' platform routes, in the order the OpenAPI document lists them.
import createTags from './create-tags.js';
import getTag from './get-tag.js';
import listTags from './list-tags.js';
import exportTags from './export-tags.js';
import updateTag from './update-tag.js';
import updateTags from './update-tags.js';
import deleteTag from './delete-tag.js';
import deleteTags from './delete-tags.js';

export const tagRoutes = [createTags, getTag, listTags, exportTags, updateTag, updateTags, deleteTag, deleteTags] as const;
