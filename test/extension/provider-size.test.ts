// A holdings provider whose answer never ends, or is far past the 4 MB limit, costs one failed
// proof and no memory: Koios and an EVM JSON-RPC node stand-in on loopback answer a 256 MB body
// and an endless one through the real proof route. The provider timeout is long, so only the
// size limit can end the read; the server's resident memory is sampled while the proof runs.
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DATABASES, sharedServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { catalog, CARDANO_TOKEN, ETHEREUM_TOKEN, ext, genuineScan } from './helpers.js';
import { cardanoWallet } from './wallets.js';

const DOWN = { error: 'server error, try again later' };
const MB = 1024 * 1024;
/** Growth of the resident set allowed while one proof reads an oversized answer. */
const RSS_GROWTH = 32 * MB;

type Body = 'huge' | 'endless';
const CHUNK = Buffer.alloc(MB, ' ');

/** Writes `[` then blanks: 256 MB for `huge`, until the reader hangs up for `endless` (4 GB as a safety stop). */
function oversized(res: ServerResponse, body: Body): void {
  const total = body === 'huge' ? 256 * MB : 4096 * MB;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('[');
  let sent = 0;
  const pump = () => {
    while (sent < total && !res.destroyed) {
      sent += CHUNK.length;
      if (!res.write(CHUNK)) return void res.once('drain', pump);
    }
    res.end();
  };
  res.on('close', () => (sent = total));
  pump();
}

/** The highest resident set seen while `work` runs, above the one before it. */
async function rssGrowth(work: () => Promise<void>): Promise<number> {
  global.gc?.();
  const start = process.memoryUsage().rss;
  let peak = start;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, process.memoryUsage().rss) - start;
}

describe('oversized provider answers', () => {
  const next: { body: Body } = { body: 'huge' };
  const standIn = createServer((req, res) => {
    req.resume();
    req.on('end', () => oversized(res, next.body));
  });
  const env: Record<string, Record<string, string>> = { koios: {}, rpc: {} };
  before(async () => {
    await new Promise<void>((r) => standIn.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
    Object.assign(env.koios!, { TAPPROOF_CARDANO_HOLDINGS: 'koios', TAPPROOF_KOIOS_URL: `${base}/koios`, TAPPROOF_HOLDINGS_TIMEOUT_MS: '60000' });
    Object.assign(env.rpc!, { TAPPROOF_ETHEREUM_HOLDINGS: 'rpc', TAPPROOF_ETHEREUM_RPC_URL: `${base}/rpc`, TAPPROOF_HOLDINGS_TIMEOUT_MS: '60000' });
  });
  after(() => {
    standIn.closeAllConnections();
    return new Promise<void>((r) => standIn.close(() => r()));
  });

  /** A challenge and a signed proof for a production token held (if at all) according to the stand-in. */
  const proofs = {
    koios: async (server: TestServer, world: SeededTeam) => {
      const holder = cardanoWallet();
      const path = `/verifications/${(await genuineScan(server, world, 'production', await catalog(server, world, 'production', CARDANO_TOKEN))).publicId}`;
      const c = (await ext(server, 'POST', `${path}/challenge`)).body;
      return () =>
        ext(server, 'POST', `${path}/proof`, {
          body: { session_id: c.session_id, address: holder.address, ...holder.signData(c.message), blockchain_type: 'cardano' },
        });
    },
    rpc: async (server: TestServer, world: SeededTeam) => {
      const holder = privateKeyToAccount(generatePrivateKey());
      const path = `/verifications/${(await genuineScan(server, world, 'production', await catalog(server, world, 'production', ETHEREUM_TOKEN))).publicId}`;
      const c = (await ext(server, 'POST', `${path}/challenge`, { body: { address: holder.address } })).body;
      const signature = await holder.signMessage({ message: c.message });
      return () => ext(server, 'POST', `${path}/proof`, { body: { session_id: c.session_id, address: holder.address, signature } });
    },
  };

  for (const kind of DATABASES) {
    for (const provider of ['koios', 'rpc'] as const) {
      describe(`${provider} (${kind})`, () => {
        const suite = sharedServer(kind, env[provider]);
        for (const body of ['huge', 'endless'] as const) {
          test(`a ${body === 'huge' ? '256 MB' : 'never-ending'} answer → 500 server error, try again later, reading at most the limit`, async () => {
            const prove = await proofs[provider](suite.server, suite.world);
            next.body = body;
            let status = 0;
            let answer: unknown;
            const growth = await rssGrowth(async () => {
              const r = await prove();
              status = r.status;
              answer = r.body;
            });
            assert.equal(status, 500);
            assert.deepEqual(answer, DOWN);
            assert.ok(growth < RSS_GROWTH, `resident set grew by ${Math.round(growth / MB)} MB`);
          });
        }
      });
    }
  }
});
