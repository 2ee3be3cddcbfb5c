// The extension's routes on the platform API, for the team's key: a tag's links and a verification's
// ownership proofs (the public extension API itself is routes/index.ts).
import getTagLinks from './catalog/routes/get-tag-links.js';
import listOwnershipProofs from './ownership-proofs/routes/list-ownership-proofs.js';

export const extensionPlatformRoutes = [getTagLinks, listOwnershipProofs] as const;
