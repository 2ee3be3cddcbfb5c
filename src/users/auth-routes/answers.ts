// The plain JSON the /auth routes answer and read. The console is their only client: they sit outside
// the platform API's JSON:API scope, and their errors are rendered by the one error handler all the same.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problem, validationFailed, DomainError } from '../../errors.js';
import * as teamsRepo from '../../teams/index.js';
import { isoMicros } from '../../time.js';
import type { UsersContext } from '../context.js';
import type { LiveSession } from '../sessions.js';
import { Throttled } from '../throttle.js';

/** Who is signed in, as GET /auth/session and every sign-in answer it. */
export async function sessionAnswer(ctx: UsersContext, session: LiveSession) {
  const team = await teamsRepo.findTeam(ctx.db.kysely, session.teamId);
  return {
    user: { id: session.userId, email: session.email, role: session.role },
    team: { id: session.teamId, name: team?.name ?? null },
    mode: session.mode,
    method: session.method,
    csrf_token: session.csrf,
    expires_at: isoMicros(session.expiresAt),
  };
}

/** The request's JSON object body, or 400: the /auth routes take small flat objects only. */
export function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new DomainError('MalformedBody', [], undefined, 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

/** The string fields `names` of `body`, each required: a missing or non-string one is a 422 naming it. */
export function strings<K extends string>(body: Record<string, unknown>, ...names: K[]): Record<K, string> {
  const problems = names.filter((n) => typeof body[n] !== 'string').map((n) => problem(n, `${n} must be a string`));
  if (problems.length > 0) throw validationFailed(problems);
  return Object.fromEntries(names.map((n) => [n, body[n] as string])) as Record<K, string>;
}

/** Where people reach the console: TAPPROOF_PUBLIC_URL, or the request's own origin. */
export const originOf = (ctx: UsersContext, request: FastifyRequest): string => ctx.config.console.publicUrl ?? `${request.protocol}://${request.host}`;

/** `work`'s answer; when it is throttled, the 429 carries the wait in Retry-After. */
export async function throttled<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Throttled) reply.header('retry-after', String(error.retryAfter));
    throw error;
  }
}
