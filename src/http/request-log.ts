// What each request's log lines say of it: Fastify's own `req` fields, the url cut short. A request head
// may be 40 kB (docs/hardening.md), so a client could otherwise make a log line of that size per request;
// the start of a url is enough to find a request, and its id names it exactly.
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { ChildLoggerOptions } from 'fastify/types/logger.js';

/** The characters of a url a log line keeps. */
export const LOGGED_URL_MAX = 2048;

export function loggedUrl(url: string): string {
  return url.length <= LOGGED_URL_MAX ? url : `${url.slice(0, LOGGED_URL_MAX)}… (${url.length} characters)`;
}

export const requestLogSerializers = {
  req: (request: FastifyRequest) => ({
    method: request.method,
    url: loggedUrl(request.url),
    version: request.headers['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }),
};

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Record<string, unknown>;
type ChildOptions = ChildLoggerOptions;
/** pino's loggers answer this; Fastify's null logger (no logging at all) does not. */
type Parent = FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };

/**
 * A request's logger that makes its pino child (the request id bound in) only when a line is written.
 * At the usual level (warn and above) most requests write nothing, and a pino child per request is a
 * cost every request paid; the lines written are the child's own, byte for byte.
 */
class RequestLogger {
  #real: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: Parent,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  #logger(): FastifyBaseLogger {
    return (this.#real ??= this.parent.child(this.bindings, this.options));
  }

  #write(level: Level, args: unknown[]): void {
    if (this.#real === undefined && this.parent.isLevelEnabled?.(level) === false) return;
    (this.#logger()[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return this.#real?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.#logger().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return ((this.#real ?? this.parent) as Parent).isLevelEnabled?.(level) ?? true;
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory`: a route with its own level or serializers gets its pino child at once
 * (its level decides what it writes); every other request a RequestLogger.
 */
export function requestLogger(this: unknown, logger: FastifyBaseLogger, bindings: Bindings, options: ChildOptions): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options);
  return new RequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
