// Passkeys (WebAuthn): registered with a one-time link or from a signed-in session, then used to sign in.
// Credentials are discoverable, so signing in asks for no email and says nothing of which accounts exist.
// Every ceremony's challenge is a stored row spent by the first answer that names it, whether that answer
// then passes or not: a refused answer cannot be retried, and a captured one cannot be replayed.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { recordAudit } from '../audit/index.js';
import type { Executor } from '../db/database.js';
import type { SignInChallengesTable } from '../db/schema.js';
import { inTransaction } from '../db/transaction.js';
import { DomainError, problem, validationFailed } from '../errors.js';
import type { UsersContext } from './context.js';
import * as usersRepo from './repository.js';
import type { PasskeyRow, UserRow } from './repository.js';
import { spendLink, userActor, userOfLink } from './service.js';
import { openSession, type LiveSession, type OpenedSession, type Visitor } from './sessions.js';
import { isToken, newToken } from './tokens.js';

export const CHALLENGE_MINUTES = 5;
const CHALLENGE_MICROS = CHALLENGE_MINUTES * 60 * 1_000_000;
const RP_NAME = 'tapproof';

export const TRANSPORTS: readonly AuthenticatorTransportFuture[] = ['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'];

/** Where the console is reached: a passkey is bound to the host (its RP ID) and answers only that origin. */
export interface RelyingParty {
  id: string;
  origin: string;
}

/** The relying party at `origin`; a Host header that makes no URL (TAPPROOF_PUBLIC_URL unset) is refused. */
export function relyingParty(origin: string): RelyingParty {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw validationFailed([problem('host', 'the request names no host passkeys can belong to')]);
  }
  return { id: url.hostname, origin: url.origin };
}

/** The user handle an authenticator keeps with a credential: the user id's bytes, never the email. */
export const userHandleOf = (userId: string) => new TextEncoder().encode(userId);

/** Every refused passkey sign-in, whatever the reason, is this one answer. */
const signInFailed = () => new DomainError('PasskeySignInFailed');

const notRegistered = () => validationFailed([problem('response', 'the passkey could not be registered: ask for new options and try again')]);

const transportsOf = (row: PasskeyRow): AuthenticatorTransportFuture[] | undefined => (row.transports === null ? undefined : JSON.parse(row.transports));

/** A fresh challenge, stored for its ceremony: the same 256 random bits, base64url, as the other one-time tokens. */
async function newChallenge(ctx: UsersContext, purpose: SignInChallengesTable['purpose'], userId: string | null): Promise<string> {
  const challenge = newToken();
  const now = ctx.clock.nowMicros();
  await usersRepo.insertChallenge(ctx.db.kysely, { id: challenge, purpose, user_id: userId, data: null, expires_at: now + CHALLENGE_MICROS }, now);
  return challenge;
}

/** The challenge the client says it answered, read from its clientDataJSON; null when unreadable. */
function challengeOf(clientDataJSON: string): string | null {
  try {
    const data: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    const challenge = (data as { challenge?: unknown } | null)?.challenge;
    return isToken(challenge) ? challenge : null;
  } catch {
    return null;
  }
}

/** Spends the challenge the response names (committed at once, so that a refusal below still spends it). */
async function spend(ctx: UsersContext, clientDataJSON: string, purpose: SignInChallengesTable['purpose']) {
  const challenge = challengeOf(clientDataJSON);
  if (challenge === null) return undefined;
  return usersRepo.spendChallenge(ctx.db.kysely, challenge, purpose, ctx.clock.nowMicros());
}

export async function registrationOptions(ctx: UsersContext, user: UserRow, rp: RelyingParty): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await usersRepo.passkeysOf(ctx.db.kysely, user.id);
  const challenge = await newChallenge(ctx, 'passkey-register', user.id);
  return generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.email,
    userID: userHandleOf(user.id),
    challenge: Buffer.from(challenge, 'base64url'),
    timeout: CHALLENGE_MICROS / 1000,
    attestationType: 'none',
    excludeCredentials: existing.map((row) => ({ id: row.id, transports: transportsOf(row) })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
}

/** Checks a registration answered this user's challenge at this relying party; the passkey to store. */
async function verifiedPasskey(ctx: UsersContext, userId: string, response: RegistrationResponseJSON, rp: RelyingParty): Promise<PasskeyRow> {
  const spent = await spend(ctx, response.response.clientDataJSON, 'passkey-register');
  if (!spent || spent.user_id !== userId) throw notRegistered();
  let verification;
  try {
    verification = await verifyRegistrationResponse({
      response,
      expectedChallenge: spent.id,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
  } catch {
    throw notRegistered();
  }
  if (!verification.verified) throw notRegistered();
  const { credential } = verification.registrationInfo;
  const transports = (credential.transports ?? []).filter((t) => TRANSPORTS.includes(t));
  return {
    id: credential.id,
    user_id: userId,
    public_key: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: transports.length === 0 ? null : JSON.stringify(transports),
    created_at: ctx.clock.nowMicros(),
    last_used_at: null,
  };
}

async function savePasskey(trx: Executor, user: UserRow, passkey: PasskeyRow, visitor: Visitor): Promise<void> {
  // A credential id is the authenticator's choice: one already stored (any user's) is refused, never replaced.
  if (await usersRepo.findPasskey(trx, passkey.id)) throw notRegistered();
  await usersRepo.insertPasskey(trx, passkey);
  await recordAudit(trx, { teamId: user.team_id, mode: null, actor: userActor(user.id, visitor) }, passkey.created_at, [
    { operation: 'user.add_passkey', resourceId: user.id, changes: { passkey: passkey.id } },
  ]);
}

/** Redeems a link by registering a passkey: the link is spent and a session opens, in one transaction. */
export async function registerWithLink(
  ctx: UsersContext,
  token: string,
  response: RegistrationResponseJSON,
  rp: RelyingParty,
  visitor: Visitor,
): Promise<OpenedSession> {
  const { user } = await userOfLink(ctx.db.kysely, ctx, token);
  const passkey = await verifiedPasskey(ctx, user.id, response, rp);
  return inTransaction(
    ctx.db,
    async (trx) => {
      // Spent inside the transaction: the link may have been spent or its user disabled since it was read.
      const current = await spendLink(trx, ctx, token);
      if (current.id !== user.id) throw new DomainError('LinkInvalid');
      await savePasskey(trx, current, passkey, visitor);
      return openSession(ctx, trx, current, 'passkey', visitor);
    },
    { afterUniqueViolation: true },
  );
}

/** A signed-in user adds a passkey; how many they have after it. */
export async function registerForSession(
  ctx: UsersContext,
  session: LiveSession,
  response: RegistrationResponseJSON,
  rp: RelyingParty,
  visitor: Visitor,
): Promise<number> {
  const passkey = await verifiedPasskey(ctx, session.userId, response, rp);
  return inTransaction(
    ctx.db,
    async (trx) => {
      const user = await usersRepo.findUser(trx, session.userId);
      if (!user || user.disabled_at !== null) throw new DomainError('NotSignedIn');
      await savePasskey(trx, user, passkey, visitor);
      return (await usersRepo.passkeysOf(trx, user.id)).length;
    },
    { afterUniqueViolation: true },
  );
}

/** Options for a sign-in: no credentials listed, the authenticator offers the ones it holds for this host. */
export async function signInOptions(ctx: UsersContext, rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const challenge = await newChallenge(ctx, 'passkey-sign-in', null);
  return generateAuthenticationOptions({
    rpID: rp.id,
    challenge: Buffer.from(challenge, 'base64url'),
    timeout: CHALLENGE_MICROS / 1000,
    userVerification: 'preferred',
  });
}

export async function signInWithPasskey(ctx: UsersContext, response: AuthenticationResponseJSON, rp: RelyingParty, visitor: Visitor): Promise<OpenedSession> {
  const spent = await spend(ctx, response.response.clientDataJSON, 'passkey-sign-in');
  if (!spent) throw signInFailed();
  const passkey = await usersRepo.findPasskey(ctx.db.kysely, response.id);
  const user = passkey ? await usersRepo.findUser(ctx.db.kysely, passkey.user_id) : undefined;
  if (!passkey || !user || user.disabled_at !== null) throw signInFailed();
  // A user handle, when the authenticator sends one, must be the owner's: it names who is signing in.
  const handle = response.response.userHandle;
  if (handle != null && handle !== Buffer.from(userHandleOf(user.id)).toString('base64url')) throw signInFailed();
  let verification;
  try {
    verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: spent.id,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: passkey.id,
        publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')),
        counter: passkey.counter,
        transports: transportsOf(passkey),
      },
      requireUserVerification: false,
    });
  } catch {
    // A wrong origin, host or type, unreadable data, or a counter that did not advance (a cloned authenticator).
    throw signInFailed();
  }
  if (!verification.verified) throw signInFailed();
  const now = ctx.clock.nowMicros();
  return inTransaction(ctx.db, async (trx) => {
    // Another sign-in with the same counter committed first: one of the two is a clone.
    if (!(await usersRepo.usePasskey(trx, passkey.id, verification.authenticationInfo.newCounter, now))) throw signInFailed();
    return openSession(ctx, trx, user, 'passkey', visitor);
  });
}
