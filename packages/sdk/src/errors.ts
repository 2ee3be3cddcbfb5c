// The SDK's errors. TapproofError carries the first JSON:API error of the answer
// (and all of them in `errors`); TapproofBatchError says how far a chunked
// operation got before a chunk failed.

export interface ApiError {
  status: string;
  title: string;
  detail?: string;
  code?: string;
  source?: { pointer?: string; parameter?: string };
}

/**
 * A stable name per status, since the server's JSON:API errors carry a status and a title but no
 * code; `network_error` when no answer came, `timeout` when none came within the call's timeout
 * (both with status 0), `rate_limited` when the retries or the wait for the limit ran out.
 */
const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  // The key's role does not allow the call; `detail` names the roles that would.
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  500: 'internal',
  503: 'unavailable',
};

export class TapproofError extends Error {
  override readonly name: string = 'TapproofError';
  /** The HTTP status; 0 when the request got no answer. */
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string | undefined;
  /** The JSON pointer of the failed attribute in the request document (`/data/3/attributes/url`). */
  readonly pointer: string | undefined;
  /** The query parameter a 400 refused (`page_size`, `since`, `cursor`). */
  readonly parameter: string | undefined;
  /** Every error of the answer: a 422 has one per failed attribute. */
  readonly errors: ApiError[];

  constructor(status: number, errors: ApiError[], options?: { cause?: unknown }) {
    const first = errors[0] ?? { status: String(status), title: status === 0 ? 'Network error' : `HTTP ${status}` };
    super(first.detail ? `${first.title}: ${first.detail}` : first.title, options);
    this.status = status;
    this.code = first.code ?? (status === 0 ? 'network_error' : (CODES[status] ?? `http_${status}`));
    this.title = first.title;
    this.detail = first.detail;
    this.pointer = first.source?.pointer;
    this.parameter = first.source?.parameter;
    this.errors = errors.length > 0 ? errors : [first];
  }
}

/**
 * A chunked operation stopped at a failing chunk. Chunks run in order, so the entries
 * before `failedChunkStart` were done (`created` holds their resources, in order) and
 * none after the failing chunk was sent. A chunk that failed without an answer
 * (`cause.status === 0`) may have landed: look before you resend it.
 */
export class TapproofBatchError<T> extends Error {
  override readonly name = 'TapproofBatchError';
  /** Index (into the entries given) of the first entry of the failing chunk. */
  readonly failedChunkStart: number;
  /** The entries done before the failing chunk: created tag resources, or updated ones. */
  readonly created: T[];
  override readonly cause: TapproofError;

  constructor(created: T[], failedChunkStart: number, cause: TapproofError) {
    super(`entries ${failedChunkStart}… failed (${cause.message}); the ${created.length} entries before them succeeded`, { cause });
    this.created = created;
    this.failedChunkStart = failedChunkStart;
    this.cause = cause;
  }
}

/** A webhook delivery that is not authentic, too old or too new, or not JSON. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}
