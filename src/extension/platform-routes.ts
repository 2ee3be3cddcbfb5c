// The extension's routes on the platform API, for the team's key: a tag's links, a verification's
// ownership proofs and its claims (the public extension API itself is routes/index.ts).
import getTagLinks from './catalog/routes/get-tag-links.js';
import listOwnershipProofs from './ownership-proofs/routes/list-ownership-proofs.js';
import listVerificationClaims from './verification-claims/routes/list-verification-claims.js';

export const extensionPlatformRoutes = [getTagLinks, listOwnershipProofs, listVerificationClaims] as const;
