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
  PayloadTooLarge: { status: 413, title: 'Request body too large' },
  UnsupportedMediaType: { status: 415, title: 'Unsupported Media Type: send application/vnd.api+json without parameters' },
  ValidationFailed: { status: 422, title: 'Validation failed' },
  RateLimited: { status: 429, title: 'Too Many Requests' },
  Internal: { status: 500, title: 'Internal Server Error' },
  Unavailable: { status: 503, title: 'Service Unavailable' },
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
