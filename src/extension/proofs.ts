// Ownership proofs (docs/extension.md, docs/decisions.md §7). A proof is
// judged first (the signature over the stored message, the holdings, then who
// may take the ownership: docs/extension.md, "Ownership"), then takes its
// challenge with an atomic compare-and-set, so a challenge answers one proof
// whatever the verdict and of concurrent proofs exactly one gets it. A success
// takes the challenge and records the ownership in one transaction; a provider
// that cannot answer takes nothing. Both writes go through the group commit
// (src/extension/writes.ts), durable before the answer.
import { randomUUID } from 'node:crypto';
import type { ExtensionContext } from './context.js';
import type { Mode } from '../db/schema.js';
import { DomainError, problem } from '../errors.js';
import { isoMicros } from '../time.js';
import * as catalogRepo from './catalog/repository.js';
import { readEthereumAddress } from './challenges.js';
import type { ProofInput } from './documents.js';
import { findShownVerification } from './lookup.js';
import { HoldingsUnavailable, bech32Address, type SignatureVerdict } from './ownership-checks.js';
import { commitExtensionWrite } from './writes.js';
import * as extensionRepo from './repository.js';
import { isUuid } from '../verifications/index.js';

/**
 * Whether several wallets can hold the token at once: a supply above 1, except an ERC-721 token
 * id, which has one holder on chain whatever supply the catalog states for its collection.
 */
export const isShared = (token: Pick<catalogRepo.TokenRow, 'supply' | 'standard'>): boolean => token.supply > 1 && token.standard !== 'erc721';

export interface ProofResult {
  success: boolean;
  request_id: string;
  ownership: { status: string; wallet_address: string; verified_at: string };
}

/** A proof request: the verification id of the path, the proof it carries (documents.ts), and the request's logger. */
export interface ProofRequest {
  pathId: string;
  proof: ProofInput;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

export async function proveOwnership(ctx: ExtensionContext, mode: Mode, { pathId, proof, log }: ProofRequest): Promise<ProofResult> {
  const db = ctx.db.kysely;
  const verification = await findShownVerification(db, mode, pathId);
  const challenge = isUuid(proof.sessionId) ? await extensionRepo.findChallenge(db, proof.sessionId.toLowerCase()) : undefined;
  const now = ctx.clock.nowMicros();
  if (!challenge || challenge.verification_id !== verification.id || challenge.mode !== mode || challenge.used_at !== null || challenge.expires_at <= now) {
    throw new DomainError('ExtInvalidChallenge');
  }
  if (proof.chain !== challenge.chain) {
    throw new DomainError('ExtValidationFailed', [problem('blockchain_type', `must be ${challenge.chain}, the chain of the challenge's token`)]);
  }
  const checks = ctx.ownership;
  // A provider that cannot answer judges nothing: the challenge stays open for a retry.
  const providerDown = (reason: string) => {
    log.warn({ token: challenge.token_id, reason }, 'ownership provider unavailable; challenge left open');
    return new DomainError('ExtProviderDown');
  };
  // A refused proof uses the challenge too (a failed proof needs a new one); of
  // concurrent proofs only the one that takes it gets its verdict.
  const refuse = async (code: 'ExtSignatureFailed' | 'ExtNotHolder' | 'ExtOwnershipHeld' | 'ExtProofWindowClosed', reason: string) => {
    if ((await commitExtensionWrite(ctx.commits, { kind: 'use-challenge', challengeId: challenge.id, now })) !== 'done')
      return new DomainError('ExtInvalidChallenge');
    log.info({ verification: verification.id, reason }, 'ownership proof refused');
    return new DomainError(code);
  };
  let wallet: string;
  let verdict: SignatureVerdict;
  if (challenge.chain === 'ethereum') {
    const address = readEthereumAddress(proof.address);
    // An EIP-4361 message names one address; another one cannot have signed it.
    verdict =
      address === null || (challenge.address !== null && address !== challenge.address)
        ? { ok: false, reason: address === null ? 'invalid-address' : 'address-not-in-message' }
        : await checks.verifyEthereum({ address, message: challenge.message, signature: proof.signature });
    wallet = address ?? proof.address;
  } else {
    wallet = bech32Address(proof.address);
    verdict = await checks.verifyCardano({
      address: wallet,
      message: challenge.message,
      signature: proof.signature,
      key: proof.key!,
      network: checks.networks(mode).cardano,
    });
  }
  if (!verdict.ok) {
    if (verdict.reason === 'rpc-unavailable') throw providerDown('EIP-1271 RPC unavailable');
    throw await refuse('ExtSignatureFailed', verdict.reason);
  }

  const token = await catalogRepo.findToken(db, challenge.token_id);
  const holds = async (address: string) => {
    try {
      return token !== undefined && (await checks.holds(token, address));
    } catch (error) {
      if (!(error instanceof HoldingsUnavailable)) throw error;
      throw providerDown(error.message);
    }
  };
  if (!(await holds(wallet))) throw await refuse('ExtNotHolder', 'not-held');
  // Who may take the ownership (docs/extension.md, "Ownership"): the first proof only
  // with a challenge issued within the scan's session window; later a holder other
  // than the recorded owner only once the recorded owner no longer holds the token,
  // and for a token several wallets hold at once only within that window too.
  const owner = verification.ownership_wallet_address;
  const inWindow = challenge.issued_at < verification.scanned_at + (verification.session_duration ?? 0) * 1_000_000;
  if (owner === null) {
    if (!inWindow) throw await refuse('ExtProofWindowClosed', 'window-closed');
  } else if (owner !== wallet) {
    // An owner's balance of a shared token falling to 0 says nothing about who has the item, and
    // every other holder holds "the token": only one who has just tapped it may take over.
    if (verification.ownership_chain === challenge.chain && (await holds(owner))) throw await refuse('ExtOwnershipHeld', 'held-by-owner');
    if (token !== undefined && isShared(token) && !inWindow) throw await refuse('ExtProofWindowClosed', 'window-closed-shared-token');
  }

  const requestId = randomUUID();
  const verifiedAt = ctx.clock.nowMicros();
  // Taking the challenge and recording the owner commit together, with the writes of other requests.
  const outcome = await commitExtensionWrite(ctx.commits, {
    kind: 'ownership',
    challengeId: challenge.id,
    now,
    row: {
      verification_id: verification.id,
      status: 'verified',
      chain: challenge.chain,
      wallet_address: wallet,
      token_id: challenge.token_id,
      request_id: requestId,
      verified_at: verifiedAt,
    },
    replaces: verification.ownership_request_id,
  });
  if (outcome === 'challenge-used') throw new DomainError('ExtInvalidChallenge');
  // Another proof changed the owner since this one was judged: it stands.
  if (outcome === 'owned') throw new DomainError('ExtOwnershipHeld');
  return { success: true, request_id: requestId, ownership: { status: 'verified', wallet_address: wallet, verified_at: isoMicros(verifiedAt) } };
}
