// What the /auth calls answer (auth-schemas.ts): who is signed in, and what a one-time link is for.
import * as teamsRepo from '../teams/index.js';
import { isoMicros } from '../time.js';
import type { UsersContext } from './context.js';
import type { LinkInfo, SignedIn } from './auth-schemas.js';
import type { userOfLink } from './service.js';
import type { UserRole } from './rules.js';
import type { LiveSession } from './sessions.js';

// A user's role column shares its type with a key's; a user is never `verify` (rules.ts).
const userRole = (role: string) => role as UserRole;

const teamName = async (ctx: UsersContext, teamId: string) => (await teamsRepo.findTeam(ctx.db.kysely, teamId))?.name ?? null;

/** Who is signed in, as GET /auth/session and every sign-in answer it. */
export async function signedInAnswer(ctx: UsersContext, session: LiveSession): Promise<SignedIn> {
  return {
    user: { id: session.userId, email: session.email, role: userRole(session.role) },
    team: { id: session.teamId, name: await teamName(ctx, session.teamId) },
    mode: session.mode,
    method: session.method,
    csrf_token: session.csrf,
    expires_at: isoMicros(session.expiresAt),
  };
}

/** A live link's account and purpose, shown before the person sets a password or registers a passkey. */
export async function linkAnswer(ctx: UsersContext, { user, purpose, expiresAt }: Awaited<ReturnType<typeof userOfLink>>): Promise<LinkInfo> {
  return {
    email: user.email,
    role: userRole(user.role),
    team: { id: user.team_id, name: await teamName(ctx, user.team_id) },
    purpose,
    expires_at: isoMicros(expiresAt),
  };
}
