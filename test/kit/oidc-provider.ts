// A real OpenID provider for single sign-on tests: oidc-provider on a loopback port with one confidential
// client and the accounts a test defines, and a browserless walk through its login and consent forms.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/** What the provider says of an account; `role` goes in the tapproof_role claim, absent when undefined. */
export interface TestAccount {
  email: string;
  email_verified?: boolean;
  role?: unknown;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The accounts by subject (the login typed at the provider); change one to change what the next sign-in says. */
  accounts: Map<string, TestAccount>;
  /** Registers the client with `redirectUri` (known once the server runs); the provider answers from then on. */
  register(redirectUri: string): Promise<void>;
  /** The server's environment for this provider, its client and `teamId`. */
  env(teamId: string): Record<string, string>;
  close(): Promise<void>;
}

// The package ships no type declarations: imported by a name the compiler does not resolve, and used as `any`.
const PROVIDER_PACKAGE: string = 'oidc-provider';

export async function startTestProvider(): Promise<TestProvider> {
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const http = createServer((req, res) => {
    if (handle) return handle(req, res);
    res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  const accounts = new Map<string, TestAccount>();
  const clientId = 'tapproof-console';
  const clientSecret = 'a-test-client-secret-that-is-long-enough';

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    async register(redirectUri) {
      const { default: Provider } = await import(PROVIDER_PACKAGE);
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ],
        // The role rides with the openid scope, and every claim of the granted scopes goes in the ID token (not
        // only in the userinfo answer, where the provider puts them by default).
        claims: { openid: ['sub', 'tapproof_role'], email: ['email', 'email_verified'] },
        conformIdTokenClaims: false,
        findAccount: (_ctx: unknown, sub: string) => {
          const account = accounts.get(sub);
          if (!account) return undefined;
          return {
            accountId: sub,
            claims: () => ({ sub, email: account.email, email_verified: account.email_verified ?? true, tapproof_role: account.role }),
          };
        },
        jwks: { keys: [{ ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'RS256' }] },
        cookies: { keys: ['a-test-cookie-signing-key'] },
        // Set, so that the provider does not remark on each default it falls back to.
        ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
        // devInteractions (on by default) render the login form (any password) and the consent form.
        features: { devInteractions: { enabled: true } },
      });
      handle = provider.callback();
    },
    env: (teamId) => ({
      TAPPROOF_OIDC_ISSUER: issuer,
      TAPPROOF_OIDC_CLIENT_ID: clientId,
      TAPPROOF_OIDC_CLIENT_SECRET: clientSecret,
      TAPPROOF_OIDC_TEAM: teamId,
    }),
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** One browser's cookies, by origin and path (enough for a provider and one server on loopback). */
export class CookieJar {
  private readonly cookies = new Map<string, { origin: string; path: string; name: string; value: string }>();

  store(url: URL, response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
      const key = `${url.origin} ${path} ${name}`;
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) <= Date.now()));
      if (expired || value === '') this.cookies.delete(key);
      else this.cookies.set(key, { origin: url.origin, path, name, value });
    }
  }

  header(url: URL): string {
    return [...this.cookies.values()]
      .filter((c) => c.origin === url.origin && (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  get(origin: string, name: string): string | undefined {
    return [...this.cookies.values()].find((c) => c.origin === origin && c.name === name)?.value;
  }
}

/** A request as a browser would send it from `jar`, redirects not followed; the answer's cookies go in the jar. */
export async function browse(jar: CookieJar, url: URL, form?: Record<string, string>): Promise<Response> {
  const headers: Record<string, string> = { cookie: jar.header(url) };
  if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const response = await fetch(url, { method: form ? 'POST' : 'GET', headers, body: form ? new URLSearchParams(form) : undefined, redirect: 'manual' });
  jar.store(url, response);
  return response;
}

const unescape = (html: string) =>
  html
    .replace(/&#x2F;/g, '/')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

/** The one form of a provider page: where it posts, and its hidden fields. */
function formOf(html: string): { action: string; fields: Record<string, string> } | null {
  const action = /<form[^>]*action="([^"]*)"/.exec(html)?.[1];
  if (action === undefined) return null;
  const fields: Record<string, string> = {};
  for (const [input] of html.matchAll(/<input[^>]*>/g)) {
    if (!/type="hidden"/.test(input)) continue;
    const name = /name="([^"]*)"/.exec(input)?.[1];
    if (name) fields[name] = unescape(/value="([^"]*)"/.exec(input)?.[1] ?? '');
  }
  if (/name="login"/.test(html)) Object.assign(fields, { login: '', password: 'any password' });
  return { action: unescape(action), fields };
}

/** The server's answer to /auth/oidc/start in a fresh browser: its redirect to the provider, and the browser. */
export async function startSignIn(origin: string): Promise<{ jar: CookieJar; start: Response }> {
  const jar = new CookieJar();
  return { jar, start: await browse(jar, new URL('/auth/oidc/start', origin)) };
}

/**
 * Starts a sign-in at `origin` and signs in at the provider as `sub` (login form, then consent) in a fresh
 * browser; stops at the provider's redirect back to the server's callback, which is not followed. `start` is
 * the server's answer to /auth/oidc/start, for a test of a refused start.
 */
export async function reachCallback(origin: string, sub: string): Promise<{ jar: CookieJar; callback: URL | null; start: Response }> {
  const { jar, start } = await startSignIn(origin);
  let url = new URL(start.headers.get('location') ?? '/', origin);
  let form: Record<string, string> | undefined;
  for (let step = 0; step < 12; step++) {
    if (url.origin === origin) return { jar, callback: url.pathname === '/auth/oidc/callback' ? url : null, start };
    const response = await browse(jar, url, form);
    form = undefined;
    const location = response.headers.get('location');
    if (location) {
      url = new URL(location, url);
      continue;
    }
    const page = formOf(await response.text());
    if (response.status !== 200 || !page) throw new Error(`the provider answered ${response.status} at ${url.pathname}`);
    url = new URL(page.action, url);
    form = page.fields.login === undefined ? page.fields : { ...page.fields, login: sub };
  }
  throw new Error('the provider never sent the browser back');
}

/** The whole sign-in as `sub`: the server's answer at its callback (its redirect and Set-Cookie), and the browser. */
export async function signInAs(origin: string, sub: string): Promise<{ response: Response; jar: CookieJar; callback: URL }> {
  const { jar, callback } = await reachCallback(origin, sub);
  if (!callback) throw new Error('the sign-in did not reach the callback');
  return { response: await browse(jar, callback), jar, callback };
}
