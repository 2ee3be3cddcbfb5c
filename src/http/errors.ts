// The closed list of errors the API can answer with. Routes and services throw
// ApiError with one of these codes; only the error handler turns them into
// bodies, so every status and title the clients see is declared here.

export const ErrorCodes = {
  InvalidJson: { status: 400, title: 'Request body is not valid JSON' },
  MalformedBody: { status: 400, title: 'Request body is malformed' },
  BatchSize: { status: 400, title: 'data must be a list of 1 to 500 entries' },
  MissingAttribute: { status: 400, title: 'A required attribute is missing' },
  MalformedId: { status: 400, title: 'Malformed id' },
  IdMismatch: { status: 400, title: 'data.id does not match the id in the path' },
  InvalidQuery: { status: 400, title: 'Invalid query parameter' },
  Unauthorized: { status: 401, title: 'Missing, invalid or revoked API key' },
  NotFound: { status: 404, title: 'Not Found' },
  RouteNotFound: { status: 404, title: 'Not Found' },
  MethodNotAllowed: { status: 405, title: 'Method Not Allowed' },
  NotAcceptable: { status: 406, title: 'Not Acceptable: this API answers application/vnd.api+json' },
  ConfiguredTag: { status: 409, title: 'The tag is configured and is kept' },
  WriteInProgress: { status: 409, title: 'A write of this tag is already running' },
  WriteEnded: { status: 409, title: 'The write has ended, or another request advanced it first' },
  PayloadTooLarge: { status: 413, title: 'Request body too large' },
  UnsupportedMediaType: { status: 415, title: 'Unsupported Media Type: send application/vnd.api+json without parameters' },
  ValidationFailed: { status: 422, title: 'Validation failed' },
  RateLimited: { status: 429, title: 'Too Many Requests' },
  Internal: { status: 500, title: 'Internal Server Error' },
  Unavailable: { status: 503, title: 'Service Unavailable' },
  // The extension API's errors (spec extension-api.md: the body is `{error: title}`).
  ExtInvalidVerificationId: { status: 400, title: 'Invalid verification ID format' },
  ExtVerificationNotFound: { status: 404, title: 'Verification not found' },
  ExtResourceUrlRequired: { status: 400, title: 'resource_url is required' },
  ExtInvalidResourceUrl: { status: 400, title: 'Invalid resource_url format' },
  ExtValidationFailed: { status: 400, title: 'Validation failed' },
  ExtVerificationNotValid: { status: 400, title: 'Verification is not valid' },
  ExtClaimVerificationNotFound: { status: 404, title: 'Verification not found in tapproof' },
  ExtNoToken: { status: 400, title: 'No token is linked to this verification' },
  ExtOwnershipVerified: { status: 400, title: 'Ownership is already verified' },
  ExtInvalidChallenge: { status: 400, title: 'Invalid or expired challenge' },
  ExtSignatureFailed: { status: 400, title: 'Signature verification failed' },
  ExtNotHolder: { status: 400, title: 'Address does not hold the required token' },
  ExtUnsupportedMediaType: { status: 415, title: 'Unsupported Media Type: send application/json' },
  ExtProviderDown: { status: 500, title: 'server error, try again later' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ErrorCodes;

/** One failed attribute of a 422: JSON pointer into the request document and why. */
export interface FieldError {
  pointer: string;
  detail: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly title: string;
  constructor(
    readonly code: ErrorCode,
    /** Only 422s carry per-field errors (spec: other bodies carry status and title only). */
    readonly fields: FieldError[] = [],
  ) {
    super(ErrorCodes[code].title);
    this.status = ErrorCodes[code].status;
    this.title = ErrorCodes[code].title;
  }
}

export const validationFailed = (fields: FieldError[]) => new ApiError('ValidationFailed', fields);
