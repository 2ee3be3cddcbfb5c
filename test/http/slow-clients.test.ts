// Slow clients are cut within the configured request timeout (docs/hardening.md, Server timeouts):
// a slowloris client trickling its headers, and one trickling its body, against a real server
// started with TAPPROOF_REQUEST_TIMEOUT_MS=2000. The engine plays no part: one is enough.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { DATABASES, startServer, type TestServer } from '../kit/harness.js';

const TIMEOUT_MS = 2000;
/** The client trickles one byte this often, for far longer than the timeout. */
const TRICKLE_MS = 100;
/** The server and this client share one event loop: a cut is seen this much late at most. */
const SLOP_MS = 250;
const TRICKLE_FOR_MS = 10_000;

/** Sends `head`, then one byte of `rest` every TRICKLE_MS; resolves when the server closes, with the time it took and what it answered. */
function trickle(server: TestServer, head: string, rest: string): Promise<{ cutAfterMs: number; answer: string }> {
  const url = new URL(server.origin);
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    let sent = 0;
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.write(head);
    const timer = setInterval(() => {
      if (socket.destroyed || Date.now() - started > TRICKLE_FOR_MS) return void clearInterval(timer);
      socket.write(rest[sent++ % rest.length]!);
    }, TRICKLE_MS);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ cutAfterMs: Date.now() - started, answer });
    });
  });
}

describe('slow clients', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(DATABASES[0]!, { TAPPROOF_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) });
  });
  after(() => server.close());

  test('headers and the whole request have one timeout, under the configured one', () => {
    const http = server.app.server;
    assert.equal(http.headersTimeout, http.requestTimeout);
    assert.ok(http.requestTimeout < TIMEOUT_MS);
  });

  test('headers trickled byte by byte → 408 and closed within the timeout', async () => {
    const { cutAfterMs, answer } = await trickle(server, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n');
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.ok(cutAfterMs <= TIMEOUT_MS + SLOP_MS, `cut after ${cutAfterMs} ms`);
  });

  test('a body trickled byte by byte → 408 and closed within the timeout', async () => {
    const body = JSON.stringify({ resource_url: 'https://brand.example/x', verification_id: 'VRF_abcdef' });
    const { cutAfterMs, answer } = await trickle(
      server,
      `POST /ext/claims HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length * 100}\r\n\r\n`,
      body,
    );
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.ok(cutAfterMs <= TIMEOUT_MS + SLOP_MS, `cut after ${cutAfterMs} ms`);
  });
});
