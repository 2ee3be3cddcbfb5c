// What every /auth operation declares for the OpenAPI document: its tag, its plain-JSON media type, its
// errors (JSON:API error documents, as everywhere) and which credential it reads.
import { Type, type TSchema } from '@sinclair/typebox';

const JSON_API = 'application/vnd.api+json';

/** Neither credential: anyone may call it. */
export const NO_CREDENTIAL: Record<string, string[]>[] = [];
/** The session cookie, when there is one (an answer without it says nobody is signed in). */
export const OPTIONAL_SESSION: Record<string, string[]>[] = [{}, { session: [] }];
/**
 * The session cookie and its CSRF token when the caller acts through a session: signing out without one only
 * clears the cookie, and a passkey registration may bring a one-time link's token in its body instead.
 */
export const OPTIONAL_SESSION_CHANGE: Record<string, string[]>[] = [{}, { session: [], csrf: [] }];
export const SESSION_CHANGE: Record<string, string[]>[] = [{ session: [], csrf: [] }];

/** What each error means on these operations (their bodies are the API's JSON:API error documents). */
const ERRORS: Record<number, string> = {
  400: 'Bad Request: the body is not a JSON object, or the one-time link is unknown, used or expired',
  401: 'Unauthorized: the sign-in failed (one answer whatever the reason), or there is no live session',
  403: 'Forbidden: a change made with the session cookie lacks its X-CSRF-Token',
  404: 'Not Found: single sign-on is not configured',
  415: 'Unsupported Media Type: a body must be application/json',
  422: 'Unprocessable: a field is missing or mistyped (`source.pointer` names it, as `/password`), or a value breaks its rule',
};

/** The schema of an /auth operation: `answers` by status (a schema, or null for an empty answer), and the error statuses it gives. */
export function authSchema(
  operationId: string,
  summary: string,
  security: Record<string, string[]>[],
  answers: Record<number, TSchema | { description: string }>,
  errors: number[],
  body?: TSchema,
) {
  const failures = Object.fromEntries(
    errors.map((status) => [status, { description: ERRORS[status], content: { [JSON_API]: { schema: Type.Ref('ErrorDocument') } } }]),
  );
  return {
    operationId,
    summary,
    tags: ['console sign-in'],
    security,
    produces: ['application/json'],
    ...(body ? { body, consumes: ['application/json'] } : {}),
    response: { ...answers, ...failures },
  };
}
