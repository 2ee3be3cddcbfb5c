// The console's sign-in calls: plain JSON under /auth (the server's src/users/auth-routes), typed by the
// operations the SDK's generated types hold (packages/sdk/src/generated/platform-api.ts). The session lives
// in an HttpOnly cookie this code never sees; what it does see is who is signed in and the CSRF token every
// change must carry.
import type { operations } from '../../sdk/src/generated/platform-api.ts';

type Answer<Op extends keyof operations> = operations[Op]['responses'] extends { 200: { content: { 'application/json': infer Body } } } ? Body : never;

export type SignedIn = Answer<'signIn'>;
export type SignInMethods = Answer<'getSignInMethods'>['methods'];
export type LinkInfo = Answer<'inspectLink'>;

/** A refused /auth call: its status and the server's sentence. */
export class AuthError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown, csrf?: string): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (csrf) headers['X-CSRF-Token'] = csrf;
  const response = await fetch(`/auth${path}`, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  if (response.status === 204) return undefined as T;
  const answer = await response.json().catch(() => null);
  if (response.ok) return answer as T;
  if (response.status === 429) throw new AuthError(429, `Too many attempts: try again in ${response.headers.get('retry-after') ?? 'a few'} s.`);
  const error = answer?.errors?.[0];
  throw new AuthError(response.status, [error?.title, error?.detail].filter(Boolean).join(': ') || `Refused (${response.status})`);
}

export const auth = {
  methods: () => call<{ methods: SignInMethods }>('GET', '/config').then((a) => a.methods),
  /** Who is signed in; null when nobody is (or the session has ended). */
  session: () => call<SignedIn | undefined>('GET', '/session').then((who) => who ?? null),
  signIn: (email: string, password: string) => call<SignedIn>('POST', '/sign-in', { email, password }),
  signOut: (csrf: string) => call<void>('POST', '/sign-out', {}, csrf),
  setMode: (csrf: string, mode: SignedIn['mode']) => call<SignedIn>('POST', '/mode', { mode }, csrf),
  inspectLink: (token: string) => call<LinkInfo>('POST', '/links/inspect', { token }),
  setPassword: (token: string, password: string) => call<SignedIn>('POST', '/links/password', { token, password }),
};

/** Passkeys: the browser's WebAuthn ceremony between the server's options and its verdict. */
export const passkeys = {
  async signIn(): Promise<SignedIn> {
    const { startAuthentication } = await import('@simplewebauthn/browser');
    const optionsJSON = await call<Parameters<typeof startAuthentication>[0]['optionsJSON']>('POST', '/passkeys/sign-in/options', {});
    return call<SignedIn>('POST', '/passkeys/sign-in', { response: await startAuthentication({ optionsJSON }) });
  },
  /** Registers a passkey with a one-time link, which signs the new user in. */
  async registerWithLink(token: string): Promise<SignedIn> {
    const { startRegistration } = await import('@simplewebauthn/browser');
    const optionsJSON = await call<Parameters<typeof startRegistration>[0]['optionsJSON']>('POST', '/passkeys/register/options', { token });
    return call<SignedIn>('POST', '/passkeys/register', { token, response: await startRegistration({ optionsJSON }) });
  },
};
