// The one place the console talks to the platform API: openapi-fetch typed by the SDK's generated
// paths (packages/sdk/src/generated/platform-api.ts, from GET /api/v1/openapi.json), signed in by the
// session cookie (with its CSRF token on every change) or by an API key from sessionStorage, and
// JSON:API error documents turned into one readable line.
import createClient, { type Client } from 'openapi-fetch';
import type { operations, paths } from '../../sdk/src/generated/platform-api.ts';

export type Api = Client<paths>;
type Ok<Op extends keyof operations> = operations[Op]['responses'] extends { 200: { content: { 'application/vnd.api+json': infer Body } } } ? Body : never;

export type Verification = Ok<'listVerifications'>['data'][number];
export type Stats = Ok<'getVerificationStats'>['meta'];
export type Tag = Ok<'listTags'>['data'][number];
export type Webhook = Ok<'listWebhooks'>['data'][number];
export type Delivery = Ok<'listDeliveries'>['data'][number];
export type Key = Ok<'listKeys'>['data'][number];
export type User = Ok<'listUsers'>['data'][number];
export type Role = Key['attributes']['role'];
export type Product = Ok<'listProducts'>['data'][number];
export type Token = Ok<'listTokens'>['data'][number];
export type Holding = Ok<'listHoldings'>['data'][number];
export type Team = Ok<'getCurrentTeam'>['data'];
export type Thresholds = Team['attributes']['signal_thresholds'];

const KEY_ITEM = 'tapproof.console.key';

/** The key of this tab's session: sessionStorage, so it leaves with the tab and never reaches another. */
export const storedKey = {
  get: (): string | null => sessionStorage.getItem(KEY_ITEM),
  set: (key: string) => sessionStorage.setItem(KEY_ITEM, key),
  clear: () => sessionStorage.removeItem(KEY_ITEM),
};

/** How the console's requests are signed: a user's session (its cookie goes by itself), or a pasted key. */
export type Credential = { csrf: string } | { key: string };

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A client signed by `credential`; `onUnauthorized` runs when the session or key stops being accepted. */
export function apiClient(credential: Credential, onUnauthorized: () => void = () => {}): Api {
  const client = createClient<paths>({
    baseUrl: `${location.origin}/api/v1`,
    headers: { Accept: 'application/vnd.api+json', ...('key' in credential ? { Authorization: `Bearer ${credential.key}` } : {}) },
    credentials: 'same-origin',
  });
  client.use({
    onRequest({ request }) {
      if ('csrf' in credential && !SAFE.has(request.method)) request.headers.set('X-CSRF-Token', credential.csrf);
      return request;
    },
    onResponse({ response }) {
      if (response.status === 401) onUnauthorized();
    },
  });
  return client;
}

interface ErrorObject {
  status?: string;
  title?: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string };
}

export interface ApiProblem {
  status: number;
  errors: ErrorObject[];
}

/** What openapi-fetch hands back as `error` (a JSON:API document, or text) → status and error objects. */
export function problemOf(error: unknown, response: Response | undefined): ApiProblem {
  const errors = (error as { errors?: ErrorObject[] } | undefined)?.errors;
  return { status: response?.status ?? 0, errors: Array.isArray(errors) ? errors : [{ title: typeof error === 'string' && error ? error : 'No answer' }] };
}

/** One line for a person: "422 Invalid attribute: url must be …". */
export function describeProblem(problem: ApiProblem): string {
  const first = problem.errors[0];
  const text = [first?.title, first?.detail].filter(Boolean).join(': ') || 'Request failed';
  return problem.status ? `${problem.status} ${text}` : text;
}

/** Every error of a refusal in one line: a 422 names each refused field, and a form shows them all. */
export function describeProblems(problem: ApiProblem): string {
  const details = problem.errors.map((e) => e.detail).filter(Boolean);
  if (details.length < 2) return describeProblem(problem);
  return `${problem.status} ${problem.errors[0]?.title ?? 'Refused'}: ${details.join('; ')}`;
}

/**
 * The errors of a refused document under `prefix` (a JSON pointer), by the name that follows it:
 * `/data/attributes/signal_thresholds/counter_gap` under `/data/attributes/signal_thresholds` → `counter_gap`,
 * so a form can show each next to its field. Errors at the prefix itself or elsewhere are under "".
 */
export function problemsAt(problem: ApiProblem, prefix: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const error of problem.errors) {
    const pointer = error.source?.pointer ?? '';
    const name = pointer.startsWith(`${prefix}/`) ? pointer.slice(prefix.length + 1).split('/')[0] : '';
    (out[name] ??= []).push(error.detail ?? error.title ?? 'Refused');
  }
  return out;
}

/** Runs a request and returns its data, or throws an Error whose message describes the problem. */
export async function must<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await request;
  if (error !== undefined || data === undefined) throw new ProblemError(problemOf(error, response));
  return data;
}

export class ProblemError extends Error {
  constructor(readonly problem: ApiProblem) {
    super(describeProblem(problem));
  }
}

/** The mode a key acts in, from its prefix (tp_sandbox_… / tp_live_…). */
export function modeOfKey(key: string): 'sandbox' | 'production' {
  return key.startsWith('tp_live_') ? 'production' : 'sandbox';
}
