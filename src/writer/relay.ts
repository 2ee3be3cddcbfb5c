// The writer side of remote personalization (docs/writer.md): relays the server's APDUs to a card and
// the card's answers back, over HTTP with an API key. It holds no key and does no cryptography
// (docs/decisions.md §4). Used by `tapproof writer`, the emulator and bench/writer.ts.

/** A card in a reader: the software card, or a PC/SC reader (reader.ts). Throws when the card left. */
export interface CardLink {
  transmit(apdu: Buffer): Promise<Buffer>;
}

export interface WriteOutcome {
  writeId: string | null;
  tagId: string;
  status: 'configured' | 'rekeyed' | 'failed';
  reason: { code: string; detail: string } | null;
  /** As the server counts them (the write's `round_trips`): APDU batches relayed and answered; the request that starts the write is none. */
  roundTrips: number;
  /** HTTP status and one-line message when the server refused the request (409, 404, …). */
  refused?: { status: number; detail: string };
}

/** Statuses after which the next command of a batch may go: ISO 9000, native 9100 and 91AF. */
const GO_ON = new Set([0x9000, 0x9100, 0x91af]);

/** How the writer reaches the server: HTTP (HttpTransport), or in-process for `tapproof emulator create`. */
export interface Transport {
  post(path: string, body: unknown): Promise<{ status: number; body: any }>;
}

/** The server did not answer at all (nothing listening, unknown host, timed out): no write was refused. */
export class ServerUnreachableError extends Error {
  constructor(
    /** `https://host/api/v1` */
    readonly base: string,
    /** `connection refused`, `unknown host`, … */
    readonly reason: string,
  ) {
    super(`cannot reach the tapproof server at ${base} (${reason})`);
  }
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'unknown host',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for an answer',
  ECONNRESET: 'connection reset',
  UND_ERR_SOCKET: 'connection closed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/**
 * Why fetch could not reach `base`, or null when `error` is not that. fetch hides the system error as
 * the cause of a bare `TypeError: fetch failed` (an AggregateError's when several addresses were tried).
 */
function unreachable(base: string, error: unknown): ServerUnreachableError | null {
  if (!(error instanceof TypeError) || error.message !== 'fetch failed') return null;
  const cause = error.cause as (Error & { code?: string; errors?: (Error & { code?: string })[] }) | undefined;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  // The fetch standard's blocked ports (9, 25, 6000, …), refused before any connection.
  if (cause?.message === 'bad port') return new ServerUnreachableError(base, 'a port fetch refuses to connect to');
  return new ServerUnreachableError(base, (code && NETWORK_REASONS[code]) ?? (cause?.message || code || 'no answer'));
}

/** `fetch(base + path)`; failing to reach the server at all is a ServerUnreachableError naming `base`. */
export async function fetchFrom(base: string, path: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(base + path, init);
  } catch (error) {
    throw unreachable(base, error) ?? error;
  }
}

export class HttpTransport implements Transport {
  constructor(
    /** `https://host/api/v1` */
    readonly base: string,
    readonly key: string,
  ) {}

  async post(path: string, body: unknown): Promise<{ status: number; body: any }> {
    const response = await fetchFrom(this.base, path, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/vnd.api+json', accept: 'application/vnd.api+json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: any = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    return { status: response.status, body: parsed };
  }
}

export class WriterClient {
  readonly transport: Transport;
  constructor(base: string | Transport, key = '') {
    this.transport = typeof base === 'string' ? new HttpTransport(base, key) : base;
  }

  #post(path: string, body: unknown) {
    return this.transport.post(path, body);
  }

  /** Writes one tag through `card` (or, `rekey`, moves its chip to new keys); `progress` hears each round trip's step. */
  async write(
    tagId: string,
    card: CardLink,
    progress: (step: string) => void = () => {},
    operation: 'personalize' | 'rekey' = 'personalize',
  ): Promise<WriteOutcome> {
    const attributes = operation === 'rekey' ? { tag_id: tagId, operation } : { tag_id: tagId };
    let r = await this.#post('/writer/writes', { data: { type: 'writes', attributes } });
    let roundTrips = 0;
    let writeId: string | null = null;
    for (;;) {
      if (r.status !== 200 && r.status !== 201) {
        const e = r.body?.errors?.[0];
        return {
          writeId,
          tagId,
          status: 'failed',
          reason: null,
          roundTrips,
          refused: { status: r.status, detail: e ? `${e.status} ${e.title}` : `HTTP ${r.status}` },
        };
      }
      const write = r.body.data;
      writeId = write.id as string;
      const a = write.attributes;
      roundTrips = a.round_trips;
      if (a.status !== 'running') return { writeId, tagId, status: a.status, reason: a.reason, roundTrips };
      progress(a.step);
      const responses: string[] = [];
      let removed = false;
      for (const hex of a.apdus as string[]) {
        let rapdu: Buffer;
        try {
          rapdu = await card.transmit(Buffer.from(hex, 'hex'));
        } catch {
          removed = true;
          break;
        }
        // No status word at all: a reader answers so when the card left in the middle of the command.
        if (rapdu.length < 2) {
          removed = true;
          break;
        }
        responses.push(rapdu.toString('hex'));
        if (!GO_ON.has(rapdu.readUInt16BE(rapdu.length - 2))) break;
      }
      r = await this.#post(`/writer/writes/${writeId}/responses`, {
        data: { type: 'writes', id: writeId, attributes: { responses, removed, round_trip: a.round_trips } },
      });
    }
  }
}
