// Ownership challenges (docs/extension.md, docs/decisions.md §7): single
// use, 5 minutes, a message carrying domain, verification id, token, network,
// a 96-bit nonce, issue and expiry times: one printable ASCII line of at most
// 198 bytes. An Ethereum challenge that is given the signing address is an
// EIP-4361 message instead, which names it (docs/extension.md, "Challenges").
import { randomBytes, randomUUID } from 'node:crypto';
import { checksumAddress, isAddress } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import type { ExtensionContext } from './context.js';
import type { Mode } from '../db/schema.js';
import { Type } from '@sinclair/typebox';
import { DomainError, problem, type FieldProblem } from '../errors.js';
import { fieldProblems, type FieldRule } from '../http/field-rules.js';
import { base62 } from '../ids.js';
import { isoMicros } from '../time.js';
import * as catalogRepo from './catalog/repository.js';
import type { TokenRow } from './catalog/repository.js';
import { findShownVerification } from './lookup.js';
import { commitExtensionWrite } from './writes.js';
import { publicVerificationId, verificationUuid, VRF_ID_PATTERN } from '../verifications/index.js';
import { isObject } from '../json.js';

export const CHALLENGE_LIFETIME_MICROS = 5 * 60 * 1_000_000;
const CARDANO_MAX_BYTES = 198;
const CHALLENGE_FIELDS = ['uuid', 'verification_id', 'address'];

/** What a challenge request's fields are judged against: the verification in the path and its token's chain. */
export interface ChallengeTarget {
  uuid: string;
  verificationId: string;
  chain?: 'cardano' | 'ethereum';
}

/** The optional fields of a challenge request: published in OpenAPI (ChallengeBody) and enforced with these messages. */
export const CHALLENGE_RULES = {
  uuid: {
    schema: Type.String({ description: "The verification's UUID, if given" }),
    explain: (v: unknown, target: ChallengeTarget) =>
      typeof v === 'string' && v.toLowerCase() === target.uuid ? null : 'must be the UUID of the verification in the path',
  },
  verification_id: {
    schema: Type.String({ pattern: VRF_ID_PATTERN, description: "The verification's VRF_ id, if given" }),
    explain: (v: unknown, target: ChallengeTarget) => (v === target.verificationId ? null : 'must be the verification_id of the verification in the path'),
  },
  address: {
    schema: Type.String({ description: 'ethereum, optional: the signing address; given, the message is an EIP-4361 message naming it' }),
    explain: (v: unknown, target: ChallengeTarget) => {
      if (target.chain === 'ethereum')
        return readEthereumAddress(v) === null ? 'must be 0x followed by 40 hex characters, with a valid EIP-55 checksum when mixed case' : null;
      return typeof v === 'string' ? null : 'must be a string';
    },
  },
} satisfies Record<string, FieldRule<any, ChallengeTarget>>;
/** Expired challenges are deleted at most this often per process, by the next challenge issued. */
const PRUNE_EVERY_MICROS = 60 * 1_000_000;

export interface Challenge {
  session_id: string;
  uuid: string;
  message: string;
  expires_at: string;
  blockchain_type: string;
  expected_holders: string[];
}

/** 96 random bits in base62 (17 characters; EIP-4361 wants at least 8 alphanumerics). */
const nonce = () => base62(randomBytes(12), 17);
const isoSeconds = (micros: number) => new Date(micros / 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The domain a challenge names: the requesting page's (Origin), else the API's host; host[:port] only. */
export function challengeDomain(origin: string | undefined, host: string | undefined): string {
  const authority = /^[A-Za-z0-9.-]+(:\d{1,5})?$/;
  if (origin) {
    try {
      const { host: originHost } = new URL(origin);
      if (authority.test(originHost)) return originHost.toLowerCase();
    } catch {
      // Not a URL: fall back to the Host header.
    }
  }
  return host && authority.test(host) ? host.toLowerCase() : 'localhost';
}

/** The one-line message (every Cardano challenge, Ethereum without an address); a domain too long for 198 bytes loses its leftmost labels. */
export function ownershipLine(parts: {
  domain: string;
  verificationId: string;
  tokenId: string;
  network: string;
  nonce: string;
  issuedAt: number;
  expiresAt: number;
}): string {
  const rest = ` ownership ${parts.verificationId} token ${parts.tokenId} network ${parts.network} nonce ${parts.nonce} issued ${isoSeconds(parts.issuedAt)} expires ${isoSeconds(parts.expiresAt)}`;
  let domain = parts.domain;
  while (domain.length + rest.length > CARDANO_MAX_BYTES && domain.includes('.')) domain = domain.slice(domain.indexOf('.') + 1);
  if (domain.length + rest.length > CARDANO_MAX_BYTES) domain = domain.slice(domain.length + rest.length - CARDANO_MAX_BYTES);
  return domain + rest;
}

export function ethereumMessage(parts: {
  domain: string;
  address: string;
  verificationId: string;
  token: TokenRow;
  chainId: number;
  nonce: string;
  issuedAt: number;
  expiresAt: number;
}): string {
  return createSiweMessage({
    domain: parts.domain,
    address: parts.address as `0x${string}`,
    statement: `Prove that this wallet holds ${parts.token.symbol} (${parts.token.id}) for the item of verification ${parts.verificationId}.`,
    uri: `urn:tapproof:verification:${parts.verificationId}`,
    version: '1',
    chainId: parts.chainId,
    nonce: parts.nonce,
    issuedAt: new Date(parts.issuedAt / 1000),
    expirationTime: new Date(parts.expiresAt / 1000),
    requestId: parts.verificationId,
    resources: [`urn:tapproof:token:${parts.token.id}`],
  });
}

/** An 0x address; mixed case must carry a valid EIP-55 checksum. */
export function readEthereumAddress(value: unknown): `0x${string}` | null {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(value)) return null;
  const body = value.slice(2);
  const mixed = body !== body.toLowerCase() && body !== body.toUpperCase();
  if (mixed && !isAddress(value, { strict: true })) return null;
  return checksumAddress(value as `0x${string}`);
}

/** A challenge request: the verification id of the path, the optional body, and where it came from. */
export interface ChallengeRequest {
  pathId: string;
  body: unknown;
  origin?: string;
  host?: string;
  log?: { warn(obj: object, msg: string): void };
}

export async function issueChallenge(ctx: ExtensionContext, mode: Mode, request: ChallengeRequest): Promise<Challenge> {
  const { pathId, body } = request;
  const db = ctx.db.kysely;
  if (body !== undefined && body !== null && !isObject(body)) throw new DomainError('ExtValidationFailed', [problem('body', 'must be a JSON object')]);
  const fields = (body ?? {}) as Record<string, unknown>;
  const verification = await findShownVerification(db, mode, pathId);
  const verificationId = publicVerificationId(verification.id);
  const target: ChallengeTarget = { uuid: verificationUuid(verification.id), verificationId };
  const problems: FieldProblem[] = [];
  for (const name of Object.keys(fields)) if (!CHALLENGE_FIELDS.includes(name)) problems.push(problem(name, 'is not a field of a challenge request'));
  for (const name of ['uuid', 'verification_id'] as const)
    if (fields[name] !== undefined) problems.push(...fieldProblems(name, CHALLENGE_RULES[name], fields[name], target));
  if (verification.token_id === null) {
    if (problems.length > 0) throw new DomainError('ExtValidationFailed', problems);
    throw new DomainError('ExtNoToken');
  }
  const token = (await catalogRepo.findToken(db, verification.token_id))!;
  if (fields.address !== undefined)
    problems.push(...fieldProblems('address', CHALLENGE_RULES.address, fields.address, { ...target, chain: token.chain as 'cardano' | 'ethereum' }));
  if (problems.length > 0) throw new DomainError('ExtValidationFailed', problems);
  const address = token.chain === 'ethereum' ? readEthereumAddress(fields.address) : null;

  const checks = ctx.ownership;
  const networks = checks.networks(mode);
  // Whole seconds: the message's times and expires_at say the same instant.
  const issuedAt = Math.floor(ctx.clock.nowMicros() / 1_000_000) * 1_000_000;
  const expiresAt = issuedAt + CHALLENGE_LIFETIME_MICROS;
  const domain = challengeDomain(request.origin, request.host);
  const parts = { domain, verificationId, nonce: nonce(), issuedAt, expiresAt };
  const message =
    address !== null
      ? ethereumMessage({ ...parts, address, token, chainId: networks.ethereumChainId })
      : ownershipLine({ ...parts, tokenId: token.id, network: token.chain === 'ethereum' ? `eip155:${networks.ethereumChainId}` : networks.cardano });
  let holders: string[] = [];
  if (token.chain === 'cardano') {
    try {
      holders = await checks.expectedHolders(token);
    } catch (error) {
      // The list only helps a wallet pick an address; the proof asks the provider again.
      request.log?.warn({ token: token.id, reason: (error as Error).message }, 'holdings provider gave no expected holders');
    }
  }
  const sessionId = randomUUID();
  const prune = issuedAt - ctx.challengePrune.at > PRUNE_EVERY_MICROS;
  if (prune) ctx.challengePrune.at = issuedAt;
  // Through the group commit: committed (durable) before the answer, sharing the commit with concurrent writes.
  await commitExtensionWrite(ctx.commits, {
    kind: 'challenge',
    pruneBefore: prune ? issuedAt : null,
    row: {
      id: sessionId,
      verification_id: verification.id,
      mode,
      token_id: token.id,
      chain: token.chain,
      address,
      message,
      issued_at: issuedAt,
      expires_at: expiresAt,
      used_at: null,
    },
  });
  return { session_id: sessionId, uuid: target.uuid, message, expires_at: isoMicros(expiresAt), blockchain_type: token.chain, expected_holders: holders };
}
