// The table docs/keys.md publishes of what each key mode and role may call, rendered from the route table
// (test/http/routes.ts), which the role and reach tests hold to the server: the doc cannot drift from either.
import { allowedRoles } from '../../src/http/access.js';
import { keyless, type RouteRow } from '../http/routes.js';

const yes = (b: boolean) => (b ? 'yes' : 'no');

export function accessTable(routes: readonly RouteRow[]): string {
  const rows = routes.map((r) => {
    const roles = allowedRoles(r.access);
    const people = roles.filter((role) => role !== 'verify');
    return `| \`${r.method} ${r.pattern}\` | ${roles.join(', ')} | ${yes(r.reach === undefined)} | ${yes(!keyless(r))} | ${people.length > 0 ? people.join(', ') : 'no'} |`;
  });
  return ['| Operation | Key roles | Sandbox key | Production key | Person in the console (roles) |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** The rows docs/users.md repeats: the team's people, a person's own settings, and the audit log that records them. */
export const peopleRoutes = (routes: readonly RouteRow[]): RouteRow[] =>
  routes.filter((r) => r.pattern.startsWith('/users') || r.pattern.startsWith('/profile') || r.pattern === '/audit-events');
