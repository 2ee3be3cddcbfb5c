// Verifications' front door: the scan url, the public verification ids and what the extension reads of scans.
// Other features import this feature only through this file (test/house/layers.unit.test.ts).
export { findVerification, findVerifications, previousGenuine, type VerificationRow } from './repository.js';
export { type FlaggedScans } from './scan-commit.js';
export { renderVerification } from './serializer.js';
export { Verification } from './schemas.js';
export { sdmShapeProblem } from './scan-url.js';
export { TamperStatus } from './schemas.js';
export { VRF_ID_PATTERN, isUuid, isVerificationId, platformIdsOf, publicVerificationId, verificationUuid } from './verification-ids.js';
