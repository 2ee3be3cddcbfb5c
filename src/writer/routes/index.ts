// Remote personalization (docs/writer.md), authenticated with the key of the tag's team and mode.
import startWrite from './start-write.js';
import postResponses from './post-responses.js';
import getWrite from './get-write.js';
import listTagWrites from './list-tag-writes.js';

export const writerRoutes = [startWrite, postResponses, getWrite, listTagWrites] as const;
