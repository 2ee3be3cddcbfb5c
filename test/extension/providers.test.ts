// Koios and Blockfrost through the real proof route: a local HTTP server on
// loopback stands in for the provider, answering their documented JSON, their
// rate limit (429), server errors, a stall before and after the headers, and
// malformed answers. A provider that cannot answer → 500 `server error, try
// again later` and the challenge stays open: the same proof succeeds once the
// provider answers again.
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { DATABASES, sharedServer } from '../harness.js';
import { catalog, CARDANO_TOKEN, ext, genuineScan } from './helpers.js';
import { cardanoWallet } from './wallets.js';

const DOWN = { error: 'server error, try again later' };
const NOT_HELD = { error: 'Address does not hold the required token' };
const holder = cardanoWallet();
const asset = CARDANO_TOKEN.policy_id + CARDANO_TOKEN.asset_name;

/** What the stand-in answers next. */
type Answer = 'holders' | 'nobody' | 429 | 500 | 502 | 503 | 404 | 'stall' | 'stall-body' | 'not-json' | 'not-a-list' | 'bad-quantity';

// The documented shapes: Koios GET /asset_addresses → [{payment_address, stake_address, quantity}];
// Blockfrost GET /assets/{asset}/addresses → [{address, quantity}], 404 {status_code, error, message} for nobody.
function answer(res: ServerResponse, provider: 'koios' | 'blockfrost', what: Answer): void {
  const json = (status: number, body: unknown) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (what === 'holders') {
    return json(200, provider === 'koios' ? [{ payment_address: holder.address, stake_address: null, quantity: '1' }] : [{ address: holder.address, quantity: '1' }]);
  }
  if (what === 'nobody') return provider === 'koios' ? json(200, []) : json(404, { status_code: 404, error: 'Not Found', message: 'The requested component has not been found.' });
  if (what === 'stall') return; // never answers
  if (what === 'stall-body') return void res.writeHead(200, { 'content-type': 'application/json' }).write('[');
  if (what === 'not-json') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
  if (what === 'not-a-list') return json(200, { holders: [] });
  if (what === 'bad-quantity') return json(200, provider === 'koios' ? [{ payment_address: holder.address, quantity: 1 }] : [{ address: holder.address, quantity: '-1' }]);
  if (what === 429) {
    return provider === 'koios'
      ? void res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '1' }).end('Too Many Requests')
      : json(429, { status_code: 429, error: 'Project Over Limit', message: 'Usage is over limit.' });
  }
  json(what, { status_code: what, error: 'Server Error', message: 'try later' });
}

describe('Koios and Blockfrost stand-ins through the proof route', () => {
  const next: Record<'koios' | 'blockfrost', Answer> = { koios: 'holders', blockfrost: 'holders' };
  const standIn = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/koios/asset_addresses' && url.searchParams.get('_asset_policy') === CARDANO_TOKEN.policy_id) return answer(res, 'koios', next.koios);
    if (url.pathname === `/blockfrost/assets/${asset}/addresses` && req.headers.project_id === 'mainnetTEST') return answer(res, 'blockfrost', next.blockfrost);
    res.writeHead(400).end();
  });
  const env: Record<string, Record<string, string>> = { koios: {}, blockfrost: {} };
  before(async () => {
    await new Promise<void>((r) => standIn.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
    // A short timeout so the stalls cost little; the outcome, not the time, is asserted.
    Object.assign(env.koios!, { TAPPROOF_CARDANO_HOLDINGS: 'koios', TAPPROOF_KOIOS_URL: `${base}/koios`, TAPPROOF_HOLDINGS_TIMEOUT_MS: '300' });
    Object.assign(env.blockfrost!, { TAPPROOF_CARDANO_HOLDINGS: 'blockfrost', TAPPROOF_BLOCKFROST_URL: `${base}/blockfrost`, TAPPROOF_BLOCKFROST_PROJECT_ID: 'mainnetTEST', TAPPROOF_HOLDINGS_TIMEOUT_MS: '300' });
  });
  after(() => {
    standIn.closeAllConnections();
    return new Promise<void>((r) => standIn.close(() => r()));
  });

  for (const kind of DATABASES) {
    for (const provider of ['koios', 'blockfrost'] as const) {
      describe(`${provider} (${kind})`, () => {
        const suite = sharedServer(kind, env[provider]);

        const challenge = async () => {
          const { server, world } = suite;
          const scanned = await genuineScan(server, world, 'production', await catalog(server, world));
          const path = `/verifications/${scanned.publicId}`;
          const c = (await ext(server, 'POST', `${path}/challenge`)).body;
          const body = { session_id: c.session_id, address: holder.address, ...holder.signData(c.message), blockchain_type: 'cardano' };
          return { path, c, prove: () => ext(server, 'POST', `${path}/proof`, { body }) };
        };

        test('429, 5xx, stalls and malformed answers → 500 server error, try again later; the same proof then succeeds', async () => {
          next[provider] = 'holders';
          const { c, prove, path } = await challenge();
          assert.deepEqual(c.expected_holders, [holder.address]);
          const failures: Answer[] = [429, 500, 502, 503, 'stall', 'stall-body', 'not-json', 'not-a-list', 'bad-quantity'];
          if (provider === 'koios') failures.push(404);
          for (const failure of failures) {
            next[provider] = failure;
            const r = await prove();
            assert.equal(r.status, 500, `${failure}: ${r.text}`);
            assert.deepEqual(r.body, DOWN, String(failure));
            assert.equal(r.headers.get('access-control-allow-origin'), '*');
          }
          next[provider] = 'holders';
          const ok = await prove();
          assert.equal(ok.status, 200, ok.text);
          assert.equal(ok.body.ownership.wallet_address, holder.address);
          assert.deepEqual((await ext(suite.server, 'GET', path)).body.ownership, ok.body.ownership);
        });

        test('a provider that cannot answer still lets a challenge be issued, without expected holders', async () => {
          for (const failure of [429, 503, 'stall'] as Answer[]) {
            next[provider] = failure;
            const { c } = await challenge();
            assert.equal(typeof c.session_id, 'string', String(failure));
            assert.deepEqual(c.expected_holders, [], String(failure));
          }
        });

        test('nobody holds the asset → 400 Address does not hold the required token', async () => {
          next[provider] = 'holders';
          const { prove } = await challenge();
          next[provider] = 'nobody';
          const r = await prove();
          assert.equal(r.status, 400);
          assert.deepEqual(r.body, NOT_HELD);
        });
      });
    }
  }
});
