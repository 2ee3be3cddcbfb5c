// One HTTP attempt of a webhook delivery. The target's name is resolved here and
// every address checked (src/webhooks/address.ts); the socket then connects to
// the checked address itself, so a second DNS answer cannot slip in between.
// Redirects are not followed; only 2xx counts as delivered.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusedBecause } from './address.js';

export interface AttemptResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The first RESPONSE_EXCERPT_BYTES of the body, when an answer came. */
  responseExcerpt: string | null;
}

/**
 * How much of an endpoint's answer is kept: enough for the reason a refusal gives (a framework's error
 * line, a JSON error), little enough that an endpoint answering megabytes costs a row nothing.
 */
export const RESPONSE_EXCERPT_BYTES = 512;

/**
 * The kept bytes as text: a multi-byte character cut at the end is dropped rather than mangled, and NUL
 * (which a PostgreSQL text column refuses: the attempt would never be recorded) becomes U+FFFD.
 */
const excerptOf = (bytes: Buffer): string =>
  new TextDecoder('utf-8', { fatal: false })
    .decode(bytes)
    .replace(/\uFFFD$/, '')
    .replace(/\0/g, '\uFFFD');

class RefusedAddress extends Error {}

function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      if (!allowPrivate) {
        for (const { address } of addresses) {
          const why = refusedBecause(address);
          if (why) return callback(new RefusedAddress(`refused: ${hostname} resolves to ${address} (${why})`), '', 0);
        }
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

export interface Sender {
  send(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult>;
  close(): void;
}

export function createSender(options: { allowPrivate: boolean; timeoutMs: number; maxSockets?: number }): Sender {
  const lookup = guardedLookup(options.allowPrivate);
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 64, lookup };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

  return {
    send(url, headers, body) {
      const started = performance.now();
      const done = (statusCode: number | null, error: string | null, responseExcerpt: string | null = null): AttemptResult => ({
        statusCode,
        error,
        responseExcerpt,
        durationMs: Math.round(performance.now() - started),
      });
      return new Promise((resolve) => {
        let target: URL;
        try {
          target = new URL(url);
        } catch {
          return resolve(done(null, 'invalid url'));
        }
        const host = target.hostname.replace(/^\[|\]$/g, '');
        // Literal addresses never reach the lookup: judge them here.
        const why = !options.allowPrivate && isIP(host) ? refusedBecause(host) : null;
        if (why) return resolve(done(null, `refused: ${host} (${why})`));
        const transport = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : null;
        if (!transport) return resolve(done(null, `unsupported scheme ${target.protocol}`));
        const request = transport.request(target, {
          method: 'POST',
          agent: agents[target.protocol as 'http:' | 'https:'],
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'tapproof-webhooks/1', ...headers },
        });
        const timer = setTimeout(() => request.destroy(new Error(`timeout after ${options.timeoutMs} ms`)), options.timeoutMs);
        request.on('response', (response) => {
          const status = response.statusCode ?? 0;
          // Keep the first bytes and drain the rest, so the socket goes back to the pool.
          const kept: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            if (size >= RESPONSE_EXCERPT_BYTES) return;
            kept.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - size));
            size += Math.min(chunk.length, RESPONSE_EXCERPT_BYTES - size);
          });
          response.on('end', () => {
            clearTimeout(timer);
            const error = status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? 'redirect not followed' : `HTTP ${status}`;
            resolve(done(status, error, excerptOf(Buffer.concat(kept))));
          });
          response.on('error', (e) => {
            clearTimeout(timer);
            resolve(done(status, e.message, excerptOf(Buffer.concat(kept))));
          });
        });
        request.on('error', (e) => {
          clearTimeout(timer);
          resolve(done(null, e instanceof RefusedAddress ? e.message : ((e as NodeJS.ErrnoException).code ?? e.message)));
        });
        request.end(body);
      });
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
