// Console users in tests: invite through the service (as the CLI does), redeem the link over HTTP, and
// call /auth and the API with the session cookie a browser would hold.
import assert from 'node:assert/strict';
import { cliActor } from '../../src/audit/record.js';
import { inviteUser } from '../../src/users/service.js';
import type { UserRole } from '../../src/users/rules.js';
import { JSON_API, answerOf, type ApiResponse, type TestServer } from '../kit/harness.js';

export const PASSWORD = 'correct horse battery staple';

/** The token of a one-time link (after `#`). */
export const tokenOf = (url: string): string => url.slice(url.indexOf('#') + 1);

export async function invited(server: TestServer, teamId: string, email: string, role: UserRole = 'admin') {
  const { user, link } = await inviteUser(server.ctx, { teamId, actor: cliActor() }, { email, role }, server.origin);
  return { id: user.id, token: tokenOf(link.url) };
}

export interface Browserish {
  /** `tapproof_session=…`, as the browser would send it back; null before a session. */
  cookie: string | null;
  csrf: string | null;
}

/** A request as the console makes it: JSON, the cookie, and the CSRF token on changes when asked. */
/** Where a call goes: an in-process test server or a `tapproof serve` process. */
type Reachable = Pick<TestServer, 'base' | 'origin'>;

export async function authCall(
  server: Reachable,
  method: string,
  path: string,
  options: { as?: Browserish; body?: unknown; csrf?: string | null; api?: boolean; headers?: Record<string, string> } = {},
): Promise<ApiResponse & { setCookie: string | null }> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.as?.cookie) headers.cookie = options.as.cookie;
  const csrf = options.csrf === undefined ? options.as?.csrf : options.csrf;
  if (csrf) headers['x-csrf-token'] = csrf;
  if (options.body !== undefined) headers['content-type'] = options.api ? JSON_API : 'application/json';
  const response = await fetch((options.api ? server.base : server.origin) + path, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
  return { ...(await answerOf(response)), setCookie: response.headers.get('set-cookie') };
}

/** The session cookie a Set-Cookie header sets, as a Cookie header carries it back. */
export function sessionCookie(setCookie: string | null): string {
  const match = /(?:^|,\s*)(tapproof_session=[^;]+)/.exec(setCookie ?? '');
  assert.ok(match, `no session cookie in ${setCookie}`);
  return match[1]!;
}

/** Sets the password with the link, which signs in: the browser's state afterwards. */
export async function redeemed(server: Reachable, token: string, password = PASSWORD): Promise<Browserish> {
  const response = await authCall(server, 'POST', '/auth/links/password', { body: { token, password } });
  assert.equal(response.status, 200, response.text);
  return { cookie: sessionCookie(response.setCookie), csrf: response.body.csrf_token };
}

export async function signedIn(server: Reachable, email: string, password = PASSWORD, address?: string): Promise<Browserish> {
  const response = await authCall(server, 'POST', '/auth/sign-in', { body: { email, password }, headers: address ? { 'x-forwarded-for': address } : {} });
  assert.equal(response.status, 200, response.text);
  return { cookie: sessionCookie(response.setCookie), csrf: response.body.csrf_token };
}
