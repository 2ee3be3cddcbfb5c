// The one error type of the domain. Services, importers and document readers
// throw DomainError with a code from the closed list below and, for value
// problems, the failed fields as paths relative to the entity (`url`,
// `events/1`) with the batch index where a batch is checked. They never know
// the wire: http/error-handler.ts alone turns an error into a JSON:API body
// (`/data/3/attributes/url`), the extension API's `{error, details}` or a
// status; the CLI prints the error's message, a plain line built here.

/** The closed list: every title a client or operator can read. Statuses are the HTTP edge's (http/errors.ts). */
export const TITLES = {
  InvalidJson: 'Request body is not valid JSON',
  MalformedBody: 'Request body is malformed',
  BatchSize: 'data must be a list of 1 to 500 entries',
  MissingAttribute: 'A required attribute is missing',
  MalformedId: 'Malformed id',
  IdMismatch: 'data.id does not match the id in the path',
  InvalidQuery: 'Invalid query parameter',
  Unauthorized: 'Missing, invalid, revoked or expired API key',
  Forbidden: "The API key's role does not allow this request",
  UserForbidden: "This user's role does not allow this request",
  SandboxReach: 'A sandbox key acts in its sandbox only',
  ConsoleOnly: 'Only an admin signed in to the console may do this',
  PersonOnly: 'Only a person signed in to the console has this',
  KeyRevoked: 'The key is revoked or expired',
  KeyRolled: 'The key has already been rolled: roll its successor instead',
  NotFound: 'Not Found',
  RouteNotFound: 'Not Found',
  MethodNotAllowed: 'Method Not Allowed',
  NotAcceptable: 'Not Acceptable: this API answers application/vnd.api+json',
  ConfiguredTag: 'The tag is configured and is kept',
  WriteInProgress: 'A write of this tag is already running',
  UnconfiguredTag: 'The tag is not configured: only the chip of a configured tag can be rekeyed',
  WriteEnded: 'The write has ended, or another request advanced it first',
  WebhookDisabled: 'The webhook is disabled: enable it first',
  PayloadTooLarge: 'Request body too large',
  UnsupportedMediaType: 'Unsupported Media Type: send application/vnd.api+json without parameters, or application/json',
  ValidationFailed: 'Validation failed',
  RateLimited: 'Too Many Requests',
  // Console sign-in (docs/users.md): one answer for a wrong password and an unknown account.
  SignInFailed: 'Wrong email or password, or the account cannot sign in',
  // A passkey names its account, so its failure need not hide which part was wrong the way a password's does.
  PasskeySignInFailed: 'The passkey was not accepted: it is unknown, the attempt expired, or its account cannot sign in',
  SignInThrottled: 'Too many failed sign-ins: try again later',
  NotSignedIn: 'Not signed in, or the session has ended',
  CsrfRejected: 'Missing or wrong X-CSRF-Token for this session',
  LinkInvalid: 'The link is unknown, used or expired: ask an admin for a new one',
  UserExists: 'A user with this email exists',
  Internal: 'Internal Server Error',
  Unavailable: 'Service Unavailable',
  // The extension API's errors: the body is `{error: title}` (docs/extension.md#http).
  ExtInvalidVerificationId: 'Invalid verification ID format',
  ExtVerificationNotFound: 'Verification not found',
  ExtResourceUrlRequired: 'resource_url is required',
  ExtInvalidResourceUrl: 'Invalid resource_url format',
  ExtValidationFailed: 'Validation failed',
  ExtVerificationNotValid: 'Verification is not valid',
  ExtClaimVerificationNotFound: 'Verification not found in tapproof',
  ExtNoToken: 'No token is linked to this verification',
  ExtOwnershipHeld: 'Ownership is held by another wallet',
  ExtProofWindowClosed: 'The proof window of this scan has closed: scan the item again',
  ExtInvalidChallenge: 'Invalid or expired challenge',
  ExtSignatureFailed: 'Signature verification failed',
  ExtNotHolder: 'Address does not hold the required token',
  ExtUnsupportedMediaType: 'Unsupported Media Type: send application/json',
  ExtProviderDown: 'server error, try again later',
} as const;

export type ErrorCode = keyof typeof TITLES;

/**
 * One failed field: its path inside the entity (`url`, `events/1`, `params.cmac`;
 * empty for the entity as a whole), why, and which entry of a batch it is in.
 */
export interface FieldProblem {
  path: string;
  detail: string;
  index?: number;
}

export const problem = (path: string, detail: string, index?: number): FieldProblem => (index === undefined ? { path, detail } : { path, detail, index });

/** `entry 3, url: url is already used …`: how one field reads on a terminal. */
function fieldLine(f: FieldProblem): string {
  const where = [f.index === undefined ? '' : `entry ${f.index}`, f.path].filter((s) => s !== '').join(', ');
  return where === '' ? f.detail : `${where}: ${f.detail}`;
}

export class DomainError extends Error {
  readonly title: string;
  constructor(
    readonly code: ErrorCode,
    /** Value problems (a 422, the extension's `details`); other errors carry the code only. */
    readonly fields: readonly FieldProblem[] = [],
    /** What was refused, leading the plain line (`nothing imported`). */
    refused?: string,
    /** A sentence for the client beside the title, on an error without `fields` (JSON:API `detail`). */
    readonly detail?: string,
  ) {
    const lines = fields.length > 0 ? fields.map(fieldLine).join('; ') : TITLES[code];
    super(refused === undefined ? lines : `${refused}: ${lines}`);
    this.title = TITLES[code];
  }
}

export const validationFailed = (fields: FieldProblem[]) => new DomainError('ValidationFailed', fields);

/** An operator's request refused as a whole (`no team team_…`): its message is the detail alone. */
export const refusal = (detail: string) => new DomainError('ValidationFailed', [problem('', detail)]);
