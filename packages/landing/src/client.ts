// Everything but the element: usable in any browser script, a bundler, or Node (no DOM needed).
export { ExtensionClient, ExtensionError, extensionBase } from './api.js';
export type { Challenge, ChallengeBody, ClaimBody, ClaimCreated, ExtVerification, Ownership, ProofBody, ProofResult, Tamper, Token } from './api.js';
export * from './wallets/index.js';
export { TEXT, refusalText, sealText, tokenText, walletHint } from './messages.js';
