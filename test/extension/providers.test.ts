// Koios and Blockfrost through the real proof route: a local HTTP server on
// loopback stands in for the provider, answering their documented JSON, their
// rate limit (429), server errors, a stall before and after the headers, and
// malformed answers. A provider that cannot answer → 500 `server error, try
// again later` and the challenge stays open: the same proof succeeds once the
// provider answers again. Proofs ask about the one wallet (docs/wallets.md), so a token
// with more holders than the provider's list pages is still judged right.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { catalog, CARDANO_TOKEN, ext, genuineScan } from './helpers.js';
import { cardanoWallet } from './wallets.js';

const DOWN = { error: 'server error, try again later' };
const NOT_HELD = { error: 'Address does not hold the required token' };
const holder = cardanoWallet();
const asset = CARDANO_TOKEN.policy_id + CARDANO_TOKEN.asset_name;

/** What the stand-in answers next. `many`: more holders than the list pages hold, and the holder's token on its second page of assets. */
type Answer = 'holders' | 'many' | 'nobody' | 429 | 500 | 502 | 503 | 404 | 'stall' | 'stall-body' | 'not-json' | 'not-a-list' | 'bad-quantity';
/** The token's holder list (challenges) or one wallet's assets (proofs). */
type Endpoint = 'holders' | 'wallet';

const other = (i: number) => `addr1other${i}`;
const koiosAsset = (policy_id: string, asset_name: string, quantity: unknown) => ({
  address: holder.address,
  policy_id,
  asset_name,
  fingerprint: 'asset1x',
  decimals: 0,
  quantity,
});

// The documented shapes. Holder lists: Koios GET /asset_addresses → [{payment_address, stake_address,
// quantity}] (1000 rows at most); Blockfrost GET /assets/{asset}/addresses?count&page → [{address,
// quantity}], 404 for nobody. One wallet: Koios POST /address_assets {_addresses} → [{address,
// policy_id, asset_name, fingerprint, decimals, quantity}] paged by offset/limit; Blockfrost GET
// /addresses/{address} → {address, amount: [{unit, quantity}], stake_address, type, script}, 404 for
// an address never used.
function answer(res: ServerResponse, provider: 'koios' | 'blockfrost', endpoint: Endpoint, what: Answer, page: number): void {
  const json = (status: number, body: unknown) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const wallet = (amount: { unit: string; quantity: unknown }[]) => ({
    address: holder.address,
    amount: [{ unit: 'lovelace', quantity: '5000000' }, ...amount],
    stake_address: null,
    type: 'shelley',
    script: false,
  });
  if (what === 'holders' || what === 'many') {
    if (endpoint === 'holders') {
      if (what === 'holders')
        return json(
          200,
          provider === 'koios' ? [{ payment_address: holder.address, stake_address: null, quantity: '1' }] : [{ address: holder.address, quantity: '1' }],
        );
      // Every page full of other holders: the holder is never listed.
      return provider === 'koios'
        ? json(
            200,
            Array.from({ length: 1000 }, (_, i) => ({ payment_address: other(i), stake_address: null, quantity: '1' })),
          )
        : json(
            200,
            Array.from({ length: 100 }, (_, i) => ({ address: other(page * 100 + i), quantity: '1' })),
          );
    }
    if (provider === 'blockfrost')
      return json(
        200,
        wallet([
          { unit: 'ff'.repeat(28), quantity: '7' },
          { unit: asset, quantity: '1' },
        ]),
      );
    if (what === 'holders') return json(200, [koiosAsset(CARDANO_TOKEN.policy_id, CARDANO_TOKEN.asset_name, '1')]);
    // A first page of 1000 other assets; the token on the second.
    return page === 0
      ? json(
          200,
          Array.from({ length: 1000 }, (_, i) => koiosAsset('ff'.repeat(28), i.toString(16).padStart(4, '0'), '1')),
        )
      : json(200, [koiosAsset(CARDANO_TOKEN.policy_id, CARDANO_TOKEN.asset_name, '1')]);
  }
  if (what === 'nobody') {
    if (provider === 'blockfrost') return json(404, { status_code: 404, error: 'Not Found', message: 'The requested component has not been found.' });
    return json(200, endpoint === 'holders' ? [] : [koiosAsset('ff'.repeat(28), '', '3')]);
  }
  if (what === 'stall') return; // never answers
  if (what === 'stall-body') return void res.writeHead(200, { 'content-type': 'application/json' }).write('[');
  if (what === 'not-json') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
  if (what === 'not-a-list') return json(200, { holders: [] });
  if (what === 'bad-quantity') {
    if (endpoint === 'holders')
      return json(200, provider === 'koios' ? [{ payment_address: holder.address, quantity: 1 }] : [{ address: holder.address, quantity: '-1' }]);
    return provider === 'koios'
      ? json(200, [koiosAsset(CARDANO_TOKEN.policy_id, CARDANO_TOKEN.asset_name, 1)])
      : json(200, wallet([{ unit: asset, quantity: '-1' }]));
  }
  if (what === 429) {
    return provider === 'koios'
      ? void res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '1' }).end('Too Many Requests')
      : json(429, { status_code: 429, error: 'Project Over Limit', message: 'Usage is over limit.' });
  }
  json(what, { status_code: what, error: 'Server Error', message: 'try later' });
}

async function bodyOf(req: IncomingMessage): Promise<any> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : null;
}

describe('Koios and Blockfrost stand-ins through the proof route', () => {
  const next: Record<'koios' | 'blockfrost', Answer> = { koios: 'holders', blockfrost: 'holders' };
  const standIn = createServer(
    (req, res) =>
      void (async () => {
        const url = new URL(req.url!, 'http://x');
        const body = req.method === 'POST' ? await bodyOf(req) : null;
        if (url.pathname === '/koios/asset_addresses' && url.searchParams.get('_asset_policy') === CARDANO_TOKEN.policy_id)
          return answer(res, 'koios', 'holders', next.koios, 0);
        if (url.pathname === '/koios/address_assets' && body?._addresses?.[0] === holder.address && url.searchParams.get('limit') === '1000') {
          return answer(res, 'koios', 'wallet', next.koios, Number(url.searchParams.get('offset')) / 1000);
        }
        if (req.headers.project_id === 'mainnetTEST') {
          if (url.pathname === `/blockfrost/assets/${asset}/addresses`)
            return answer(res, 'blockfrost', 'holders', next.blockfrost, Number(url.searchParams.get('page')) - 1);
          if (url.pathname === `/blockfrost/addresses/${holder.address}`) return answer(res, 'blockfrost', 'wallet', next.blockfrost, 0);
        }
        res.writeHead(400).end();
      })(),
  );
  const env: Record<string, Record<string, string>> = { koios: {}, blockfrost: {} };
  before(async () => {
    await new Promise<void>((r) => standIn.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
    // A short timeout so the stalls cost little; the outcome, not the time, is asserted.
    Object.assign(env.koios!, { TAPPROOF_CARDANO_HOLDINGS: 'koios', TAPPROOF_KOIOS_URL: `${base}/koios`, TAPPROOF_HOLDINGS_TIMEOUT_MS: '300' });
    Object.assign(env.blockfrost!, {
      TAPPROOF_CARDANO_HOLDINGS: 'blockfrost',
      TAPPROOF_BLOCKFROST_URL: `${base}/blockfrost`,
      TAPPROOF_BLOCKFROST_PROJECT_ID: 'mainnetTEST',
      TAPPROOF_HOLDINGS_TIMEOUT_MS: '300',
    });
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

        test('more holders than the provider lists: the holder is left out of expected_holders, and still proves per address', async () => {
          next[provider] = 'many';
          const { c, prove } = await challenge();
          // Koios: one page of 1000; Blockfrost: 10 pages of 100. Neither names the holder.
          assert.equal(c.expected_holders.length, 1000);
          assert.equal(c.expected_holders.includes(holder.address), false);
          assert.equal(c.expected_holders[999], other(999));
          const ok = await prove();
          assert.equal(ok.status, 200, ok.text);
          assert.equal(ok.body.ownership.wallet_address, holder.address);
        });
      });
    }
  }
});
