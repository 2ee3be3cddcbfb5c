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
}

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
      const done = (statusCode: number | null, error: string | null): AttemptResult => ({
        statusCode,
        error,
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
          // Drain (the socket goes back to the pool) but keep nothing: the body is not ours to store.
          response.resume();
          response.on('end', () => {
            clearTimeout(timer);
            const error = status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? 'redirect not followed' : `HTTP ${status}`;
            resolve(done(status, error));
          });
          response.on('error', (e) => {
            clearTimeout(timer);
            resolve(done(status, e.message));
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
