// The extension's routes on the platform API, for the team's key: the catalog (products, tokens, a tag's
// links, who holds a token), a verification's ownership proofs and its claims (the public extension API
// itself is routes/index.ts).
import createProduct from './catalog/routes/create-product.js';
import createToken from './catalog/routes/create-token.js';
import getTagLinks from './catalog/routes/get-tag-links.js';
import listProducts from './catalog/routes/list-products.js';
import listTokens from './catalog/routes/list-tokens.js';
import updateTagLinks from './catalog/routes/update-tag-links.js';
import createHolding from './holdings/routes/create-holding.js';
import deleteHolding from './holdings/routes/delete-holding.js';
import listHoldings from './holdings/routes/list-holdings.js';
import listOwnershipProofs from './ownership-proofs/routes/list-ownership-proofs.js';
import listVerificationClaims from './verification-claims/routes/list-verification-claims.js';

export const extensionPlatformRoutes = [
  getTagLinks,
  updateTagLinks,
  listProducts,
  createProduct,
  listTokens,
  createToken,
  listHoldings,
  createHolding,
  deleteHolding,
  listOwnershipProofs,
  listVerificationClaims,
] as const;
