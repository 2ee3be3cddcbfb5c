// A tag's chip, read through the platform API.
import getTagChip from './get-tag-chip.js';

export const tagChipRoutes = [getTagChip] as const;
