// One-time links (an invite or a reset): what a link is for, and redeeming it with a new password.
import type { FastifyInstance } from 'fastify';
import { problem, validationFailed } from '../../errors.js';
import { isoMicros } from '../../time.js';
import * as teamsRepo from '../../teams/index.js';
import type { UsersContext } from '../context.js';
import { passwordProblem } from '../passwords.js';
import { setPasswordWithLink, userOfLink } from '../service.js';
import { bodyOf, sessionAnswer, strings } from './answers.js';

const hidden = { schema: { hide: true } };

export default function linkRoutes(app: FastifyInstance, ctx: UsersContext): void {
  // POST, not GET: the token travels in a body, never in a URL a log or a proxy would keep.
  app.post('/links/inspect', hidden, async (request) => {
    const { token } = strings(bodyOf(request), 'token');
    const { user, purpose, expiresAt } = await userOfLink(ctx.db.kysely, ctx, token);
    const team = await teamsRepo.findTeam(ctx.db.kysely, user.team_id);
    return { email: user.email, role: user.role, team: { id: user.team_id, name: team?.name ?? null }, purpose, expires_at: isoMicros(expiresAt) };
  });

  app.post('/links/password', hidden, async (request, reply) => {
    const { token, password } = strings(bodyOf(request), 'token', 'password');
    const why = passwordProblem(password);
    if (why) throw validationFailed([problem('password', why)]);
    return sessionAnswer(ctx, await setPasswordWithLink(ctx, token, password, request, reply));
  });
}
