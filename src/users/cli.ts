// Operator commands on console users: invite (prints the one-time link), list, disable, enable, reset,
// role. An admin does the same on the console's Users page or through /users (docs/users.md).
import { InvalidArgumentError, type Command } from 'commander';
import { cliActor } from '../audit/index.js';
import { CliError, output, table, type WithContext } from '../cli-kit.js';
import * as teamsRepo from '../teams/index.js';
import { isoMicros, isoOrNull } from '../time.js';
import type { UsersContext } from './context.js';
import * as usersRepo from './repository.js';
import { USER_ROLES, emailProblem, isUserRole, type UserRole } from './rules.js';
import { inviteUser, resetUser, updateUser, type IssuedLink } from './service.js';

function parseRole(value: string): UserRole {
  if (!isUserRole(value)) throw new InvalidArgumentError(`must be one of ${USER_ROLES.join(', ')}`);
  return value;
}

function parseEmail(value: string): string {
  const why = emailProblem(value);
  if (why) throw new InvalidArgumentError(why.replace(/^email /, ''));
  return value;
}

/**
 * Where the console is reached: TAPPROOF_PUBLIC_URL, else a guess from HOST and PORT (the CLI has no request
 * to learn the address from), which `sayIfGuessed` tells on stderr once the link is made, so that a link to
 * the wrong port is not handed over unseen.
 */
function originOf(ctx: UsersContext): string {
  if (ctx.config.console.publicUrl !== null) return ctx.config.console.publicUrl;
  const { host, port } = ctx.config;
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  return `http://${wildcard ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${port}`;
}

function sayIfGuessed(ctx: UsersContext, link: IssuedLink): void {
  if (ctx.config.console.publicUrl !== null) return;
  const origin = new URL(link.url).origin;
  process.stderr.write(
    `tapproof: the link's address ${origin} is a guess from HOST and PORT (as this shell sets them): set TAPPROOF_PUBLIC_URL to where people reach the console\n`,
  );
}

const linkLine = (link: IssuedLink) => `${link.url}\n(works once, until ${isoMicros(link.expiresAt)}; shown only now)`;

const COLUMNS = ['id', 'team_id', 'email', 'role', 'password', 'passkeys', 'disabled_at', 'last_sign_in_at'] as const;

/** The user of `id`, with its team: the CLI acts in the user's own team. */
async function userOf(ctx: UsersContext, id: string) {
  const user = await usersRepo.findUser(ctx.db.kysely, id);
  if (!user) throw new CliError(`no user ${id}`);
  return user;
}

export function registerUserCommands(program: Command, withContext: WithContext<UsersContext>): void {
  const users = program.command('users').description('manage the people who sign in to the console');
  users
    .command('invite')
    .description('a new user of a team; prints the one-time link (72 h) that sets a password or registers a passkey')
    .requiredOption('--team <team_id>', 'the team')
    .requiredOption('--email <email>', 'their address (the sign-in name)', parseEmail)
    .requiredOption('--role <role>', `what they may do: ${USER_ROLES.join(', ')}`, parseRole)
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const { user, link } = await withContext(async (ctx) => {
        const made = await inviteUser(ctx, { teamId: opts.team, actor: cliActor() }, { email: opts.email, role: opts.role }, originOf(ctx));
        sayIfGuessed(ctx, made.link);
        return made;
      });
      output(
        opts.json,
        { id: user.id, email: user.email, role: user.role, link: link.url, expires_at: isoMicros(link.expiresAt) },
        `invited ${user.email} (${user.role}) as ${user.id}\n${linkLine(link)}`,
      );
    });
  users
    .command('list')
    .description('the users of a team (or of every team), by email')
    .option('--team <team_id>', 'only this team')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const rows = await withContext(async (ctx) => {
        if (opts.team && !(await teamsRepo.findTeam(ctx.db.kysely, opts.team))) throw new CliError(`no team ${opts.team}`);
        const found = await usersRepo.listUsers(ctx.db.kysely, opts.team ?? null);
        const passkeys = await usersRepo.passkeyCounts(
          ctx.db.kysely,
          found.map((u) => u.id),
        );
        return found.map((u) => ({
          id: u.id,
          team_id: u.team_id,
          email: u.email,
          role: u.role,
          password: u.password_hash !== null,
          passkeys: passkeys.get(u.id) ?? 0,
          disabled_at: isoOrNull(u.disabled_at),
          last_sign_in_at: isoOrNull(u.last_sign_in_at),
        }));
      });
      output(opts.json, rows, rows.length === 0 ? 'no users' : table([[...COLUMNS], ...rows.map((u) => COLUMNS.map((c) => String(u[c] ?? '-')))]));
    });
  for (const [name, disabled, description] of [
    ['disable', true, 'stop a user signing in; every session of theirs ends now'],
    ['enable', false, 'let a disabled user sign in again'],
  ] as const)
    users
      .command(`${name} <user_id>`)
      .description(description)
      .option('--json', 'machine-readable output')
      .action(async (id: string, opts) => {
        const user = await withContext(async (ctx) => updateUser(ctx, { teamId: (await userOf(ctx, id)).team_id, actor: cliActor() }, id, { disabled }));
        output(opts.json, { id, email: user.email, disabled: user.disabled_at !== null }, `${name}d ${user.email} (${id})`);
      });
  users
    .command('role <user_id> <role>')
    .description(`change a user's role (${USER_ROLES.join(', ')}); their sessions end, so that it takes effect now`)
    .option('--json', 'machine-readable output')
    .action(async (id: string, role: string, opts) => {
      const next = parseRole(role);
      const user = await withContext(async (ctx) => updateUser(ctx, { teamId: (await userOf(ctx, id)).team_id, actor: cliActor() }, id, { role: next }));
      output(opts.json, { id, email: user.email, role: user.role }, `${user.email} (${id}) is ${user.role}`);
    });
  users
    .command('reset <user_id>')
    .description('a user who lost their password or passkey: removes both, ends their sessions, prints a new one-time link')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts) => {
      const { user, link } = await withContext(async (ctx) => {
        const made = await resetUser(ctx, { teamId: (await userOf(ctx, id)).team_id, actor: cliActor() }, id, originOf(ctx));
        sayIfGuessed(ctx, made.link);
        return made;
      });
      output(opts.json, { id, email: user.email, link: link.url, expires_at: isoMicros(link.expiresAt) }, `reset ${user.email} (${id})\n${linkLine(link)}`);
    });
}
