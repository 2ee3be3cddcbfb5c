// Single sign-on with OpenID Connect (docs/single-sign-on.md): the authorization code flow with PKCE, a nonce,
// and a state that is spent on its first use. The identity provider is the source of truth for who may sign in
// and with which role: the ID token's verified email finds or creates the account, its role claim sets the role.
import * as client from 'openid-client';
import { recordAudit } from '../audit/index.js';
import type { OidcConfig } from '../config.js';
import type { Executor } from '../db/database.js';
import { newId } from '../ids.js';
import * as teamsRepo from '../teams/index.js';
import type { UsersContext } from './context.js';
import * as usersRepo from './repository.js';
import type { UserRow } from './repository.js';
import { emailProblem, isUserRole, normalEmail, type UserRole } from './rules.js';
import { userActor } from './service.js';
import { changingSessions, openSession, type OpenedSession, type Visitor } from './sessions.js';

/** How long someone has at the provider between leaving and coming back. */
const CHALLENGE_MINUTES = 10;
/** Seconds an outbound request to the provider may take: a stuck provider must not hold a request for long. */
const PROVIDER_TIMEOUT_SECONDS = 10;
const SCOPE = 'openid email';

/**
 * Why a single sign-on was refused: the short code the console is sent back with (?sign_in_error=). It names
 * the rule that failed and nothing the provider said, so that no token or claim reaches a URL or a log.
 */
export type SsoRefusal =
  /** The provider's discovery document or keys could not be fetched. */
  | 'unavailable'
  /** The state is unknown, spent, expired, or was not started in this browser. */
  | 'state'
  /** The provider answered with an error (the person cancelled, or the provider refused them). */
  | 'denied'
  /** The code exchange failed, or the ID token did not verify. */
  | 'exchange'
  /** The ID token has no email, or one the provider says is not verified. */
  | 'email'
  /** The role claim is missing or not admin, write or read. */
  | 'role'
  /** The email belongs to another team's account, or to an account bound to another identity. */
  | 'account'
  /** The team new accounts join (TAPPROOF_OIDC_TEAM) does not exist. */
  | 'team'
  | 'disabled';

export class SsoRefused extends Error {
  constructor(
    readonly reason: SsoRefusal,
    /** What went wrong underneath, for the log: an error class or code, never a message that may quote a token. */
    readonly underlying?: string,
  ) {
    super(`single sign-on refused: ${reason}`);
  }
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

// One discovery per configuration and process: the provider's metadata is fetched at the first sign-in, not at
// startup, so that a provider that is down delays no boot; a failed discovery is forgotten and tried again.
const configurations = new WeakMap<OidcConfig, Promise<client.Configuration>>();

function configurationOf(oidc: OidcConfig): Promise<client.Configuration> {
  const known = configurations.get(oidc);
  if (known) return known;
  const issuer = new URL(oidc.issuer);
  // Plain http only for a provider on this host (a development or test one); openid-client refuses it otherwise.
  const insecure = issuer.protocol === 'http:' && LOOPBACK.has(issuer.hostname);
  // The only outbound requests are to the configured issuer's discovery document and the token endpoint and
  // keys it names: openid-client checks that the document's issuer is the one configured.
  const pending = client.discovery(issuer, oidc.clientId, oidc.clientSecret, client.ClientSecretBasic(oidc.clientSecret), {
    execute: insecure ? [client.allowInsecureRequests] : [],
    timeout: PROVIDER_TIMEOUT_SECONDS,
  });
  configurations.set(oidc, pending);
  pending.catch(() => {
    if (configurations.get(oidc) === pending) configurations.delete(oidc);
  });
  return pending;
}

/** An error's code or class, for the log (a refused connection says ECONNREFUSED); never its message. */
function errorName(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : error.name;
}

/** What the callback must check, kept server-side under the state until the person comes back. */
interface ChallengeData {
  nonce: string;
  verifier: string;
  redirectUri: string;
}

/** Starts a sign-in: the provider's URL to send the browser to, and the state it will come back with. */
export async function beginSignIn(ctx: UsersContext, oidc: OidcConfig, redirectUri: string): Promise<{ state: string; url: string }> {
  let config: client.Configuration;
  try {
    config = await configurationOf(oidc);
  } catch (error) {
    throw new SsoRefused('unavailable', errorName(error));
  }
  const state = client.randomState();
  const nonce = client.randomNonce();
  const verifier = client.randomPKCECodeVerifier();
  const data: ChallengeData = { nonce, verifier, redirectUri };
  const now = ctx.clock.nowMicros();
  await usersRepo.insertChallenge(
    ctx.db.kysely,
    { id: state, purpose: 'oidc', user_id: null, data: JSON.stringify(data), expires_at: now + CHALLENGE_MINUTES * 60 * 1_000_000 },
    now,
  );
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: SCOPE,
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return { state, url: url.href };
}

/** Who the provider says signed in, once the ID token verified. */
export interface SsoIdentity {
  /** `<issuer> <sub>`: what binds an account to this identity. */
  subject: string;
  email: string;
  role: UserRole;
}

/**
 * Ends a sign-in at the callback: spends the state (which must also be the one this browser started with),
 * exchanges the code with the PKCE verifier, verifies the ID token and its nonce, and reads its claims.
 */
export async function finishSignIn(ctx: UsersContext, oidc: OidcConfig, query: URLSearchParams, browserState: string | undefined): Promise<SsoIdentity> {
  const state = query.get('state');
  // The browser's own copy of the state: a callback link made by someone else (their code, their state) would
  // otherwise sign this browser in as them.
  if (!state || state !== browserState) throw new SsoRefused('state');
  const challenge = await usersRepo.spendChallenge(ctx.db.kysely, state, 'oidc', ctx.clock.nowMicros());
  if (!challenge?.data) throw new SsoRefused('state');
  const { nonce, verifier, redirectUri } = JSON.parse(challenge.data) as ChallengeData;
  let config: client.Configuration;
  try {
    config = await configurationOf(oidc);
  } catch (error) {
    throw new SsoRefused('unavailable', errorName(error));
  }
  // The token request names the redirect URI the authorization request did, whatever host the callback reached.
  const current = new URL(redirectUri);
  current.search = query.toString();
  let claims: client.IDToken | undefined;
  try {
    const tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims();
  } catch (error) {
    throw new SsoRefused(error instanceof client.AuthorizationResponseError ? 'denied' : 'exchange', errorName(error));
  }
  if (!claims) throw new SsoRefused('exchange', 'no ID token');
  return identityOf(claims, oidc);
}

function identityOf(claims: client.IDToken, oidc: OidcConfig): SsoIdentity {
  const { email, email_verified } = claims;
  if (typeof email !== 'string' || email_verified === false || emailProblem(email) !== null) throw new SsoRefused('email');
  const role = claims[oidc.roleClaim];
  if (!isUserRole(role)) throw new SsoRefused('role');
  return { subject: `${claims.iss} ${claims.sub}`, email: normalEmail(email), role };
}

/**
 * Signs `identity` in: the account bound to it; else the account of its email in the single sign-on team, which
 * is bound to it (an invited user); else a new account in that team. The role follows the provider's at every
 * sign-in. A disabled account is refused, and nothing of a refused sign-in is kept.
 */
export async function signInWithIdentity(ctx: UsersContext, oidc: OidcConfig, identity: SsoIdentity, visitor: Visitor): Promise<OpenedSession> {
  // Two first sign-ins of one person at once: the loser's insert breaks a unique index, and its run again finds the winner's account.
  return changingSessions(
    ctx,
    async (trx, changed) => {
      const user = await accountOf(trx, ctx, oidc, identity, visitor);
      if (user.disabled_at !== null) throw new SsoRefused('disabled');
      const current = await followRole(trx, ctx, user, identity.role, visitor);
      if (current !== user) changed(user.id);
      return openSession(ctx, trx, current, 'oidc', visitor);
    },
    { afterUniqueViolation: true },
  );
}

async function accountOf(trx: Executor, ctx: UsersContext, oidc: OidcConfig, identity: SsoIdentity, visitor: Visitor): Promise<UserRow> {
  const bound = await usersRepo.findUserBySubject(trx, identity.subject);
  if (bound) return bound;
  const holder = await usersRepo.findUserByEmail(trx, identity.email);
  if (holder) {
    // An address is one account across the deployment: another team's account, or one already bound to another
    // identity, is not taken over by whoever the provider vouches for.
    if (holder.team_id !== oidc.teamId || holder.oidc_subject !== null) throw new SsoRefused('account');
    await usersRepo.updateUser(trx, holder.id, { oidc_subject: identity.subject });
    await recordAudit(trx, { teamId: holder.team_id, mode: null, actor: userActor(holder.id, visitor) }, ctx.clock.nowMicros(), [
      { operation: 'user.bind', resourceId: holder.id, changes: { single_sign_on: { from: false, to: true } } },
    ]);
    return { ...holder, oidc_subject: identity.subject };
  }
  if (!(await teamsRepo.findTeam(trx, oidc.teamId))) throw new SsoRefused('team');
  const user: UserRow = {
    id: newId('usr'),
    team_id: oidc.teamId,
    email: identity.email,
    role: identity.role,
    password_hash: null,
    oidc_subject: identity.subject,
    created_at: ctx.clock.nowMicros(),
    disabled_at: null,
    last_sign_in_at: null,
  };
  await usersRepo.insertUser(trx, user);
  await recordAudit(trx, { teamId: user.team_id, mode: null, actor: userActor(user.id, visitor) }, user.created_at, [
    { operation: 'user.join', resourceId: user.id, changes: { email: user.email, role: user.role } },
  ]);
  return user;
}

/** The provider's role replaces the account's; like an admin's change, it ends the account's other sessions. */
async function followRole(trx: Executor, ctx: UsersContext, user: UserRow, role: UserRole, visitor: Visitor): Promise<UserRow> {
  if (user.role === role) return user;
  const now = ctx.clock.nowMicros();
  await usersRepo.updateUser(trx, user.id, { role });
  await usersRepo.revokeSessionsOf(trx, user.id, now);
  await recordAudit(trx, { teamId: user.team_id, mode: null, actor: userActor(user.id, visitor) }, now, [
    { operation: 'user.update', resourceId: user.id, changes: { role: { from: user.role, to: role } } },
  ]);
  return { ...user, role };
}
