// Verifying a scan, and reading verifications back.
import createVerification from './create-verification.js';
import listVerifications from './list-verifications.js';
import verificationStats from './verification-stats.js';
import exportVerifications from './export-verifications.js';
import getVerification from './get-verification.js';

export const verificationRoutes = [createVerification, listVerifications, verificationStats, exportVerifications, getVerification] as const;
