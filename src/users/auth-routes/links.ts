// One-time links (an invite or a reset): what a link is for, and redeeming it with a new password.
import type { FastifyInstance } from 'fastify';
import { isoMicros } from '../../time.js';
import * as teamsRepo from '../../teams/index.js';
import type { UsersContext } from '../context.js';
import { checkedLink, redeemWithPassword } from '../links.js';
import { bodyOf, sessionAnswer, strings, throttled } from './answers.js';

const hidden = { schema: { hide: true } };

export default function linkRoutes(app: FastifyInstance, ctx: UsersContext): void {
  // POST, not GET: the token travels in a body, never in a URL a log or a proxy would keep.
  app.post('/links/inspect', hidden, async (request, reply) => {
    const { token } = strings(bodyOf(request), 'token');
    const { user, purpose, expiresAt } = await throttled(reply, () => checkedLink(ctx, token, request.ip));
    const team = await teamsRepo.findTeam(ctx.db.kysely, user.team_id);
    return { email: user.email, role: user.role, team: { id: user.team_id, name: team?.name ?? null }, purpose, expires_at: isoMicros(expiresAt) };
  });

  app.post('/links/password', hidden, async (request, reply) => {
    const { token, password } = strings(bodyOf(request), 'token', 'password');
    return sessionAnswer(ctx, await throttled(reply, () => redeemWithPassword(ctx, token, password, request, reply)));
  });
}
