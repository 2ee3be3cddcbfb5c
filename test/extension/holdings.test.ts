// Holdings providers against real peers: OpenZeppelin 4.9 ERC-721/1155/20 on a
// local anvil chain, EIP-1271 contract wallets, Koios and Blockfrost answers from
// a local HTTP server speaking their documented JSON, and the embedded table
// managed by the real CLI on both databases.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { getAddress, type Hex } from 'viem';
import { createToken } from '../../src/extension/catalog/service.js';
import type { TokenRow } from '../../src/extension/catalog/repository.js';
import { blockfrostProvider, evmProvider, HoldingsUnavailable, holdingsFor, koiosProvider } from '../../src/extension/holdings/index.js';
import { rpcClient, verifyEthereumSignature } from '../../src/extension/wallets/index.js';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { cli } from '../verifications/helpers.js';
import { startAnvil, DEPLOYER, HOLDER, type Anvil } from './anvil.js';
import { cardanoWallet } from './wallets.js';
import { asCli } from '../kit/actors.js';

const token = (fields: Partial<TokenRow>): TokenRow => ({
  id: 'tok_test',
  team_id: 'team_test',
  mode: 'production',
  chain: 'ethereum',
  name: 'T',
  symbol: 'T',
  supply: 1,
  contract_address: null,
  policy_id: null,
  asset_name: null,
  token_number: null,
  standard: null,
  created_at: 0,
  ...fields,
});

describe('EVM RPC holdings and EIP-1271 on a real chain (anvil)', () => {
  let anvil: Anvil;
  let erc721: `0x${string}`;
  let erc1155: `0x${string}`;
  let erc20: `0x${string}`;
  before(async () => {
    anvil = await startAnvil();
    erc721 = await anvil.deploy('ERC721PresetMinterPauserAutoId', ['Watch', 'WTC', 'https://brand.example/']);
    await anvil.write(erc721, 'ERC721PresetMinterPauserAutoId', 'mint', [HOLDER.address]); // token 0
    erc1155 = await anvil.deploy('ERC1155PresetMinterPauser', ['https://brand.example/{id}']);
    await anvil.write(erc1155, 'ERC1155PresetMinterPauser', 'mint', [HOLDER.address, 7n, 3n, '0x']);
    erc20 = await anvil.deploy('ERC20PresetMinterPauser', ['Points', 'PTS']);
    await anvil.write(erc20, 'ERC20PresetMinterPauser', 'mint', [HOLDER.address, 10n ** 18n]);
  });
  after(() => anvil?.stop());

  test('erc721 ownerOf, erc1155 and erc20 balanceOf: the holder holds, others do not', async () => {
    const provider = evmProvider(rpcClient(anvil.url));
    const nft = token({ contract_address: erc721, standard: 'erc721', token_number: '0' });
    assert.equal(await provider.holds(nft, HOLDER.address), true);
    assert.equal(await provider.holds(nft, HOLDER.address.toLowerCase()), true, 'address case does not matter');
    assert.equal(await provider.holds(nft, DEPLOYER.address), false);
    assert.equal(await provider.holds({ ...nft, token_number: '99' }, HOLDER.address), false, 'a token never minted has no holder');
    const multi = token({ contract_address: erc1155, standard: 'erc1155', token_number: '7' });
    assert.equal(await provider.holds(multi, HOLDER.address), true);
    assert.equal(await provider.holds({ ...multi, token_number: '8' }, HOLDER.address), false);
    assert.equal(await provider.holds(multi, DEPLOYER.address), false);
    const fungible = token({ contract_address: erc20, standard: 'erc20' });
    assert.equal(await provider.holds(fungible, HOLDER.address), true);
    assert.equal(await provider.holds(fungible, DEPLOYER.address), false);
    assert.deepEqual(await provider.expectedHolders(fungible), []);
  });

  test('a node that is down or a contract that is not one: HoldingsUnavailable, never a verdict', async () => {
    const down = evmProvider(rpcClient('http://127.0.0.1:9'));
    await assert.rejects(down.holds(token({ contract_address: erc20, standard: 'erc20' }), HOLDER.address), HoldingsUnavailable);
    const provider = evmProvider(rpcClient(anvil.url));
    await assert.rejects(provider.holds(token({ contract_address: HOLDER.address, standard: 'erc20' }), HOLDER.address), HoldingsUnavailable);
  });

  test('EIP-1271: a contract wallet that accepts, one that refuses; EOAs still recover without the chain', async () => {
    // Runtime code answering every call with the EIP-1271 magic value 0x1626ba7e (or 0xffffffff).
    const answering = (magic: string): Hex => `0x63${magic}60e01b60005260206000f3`;
    const accepting = getAddress('0x00000000000000000000000000000000000a1271');
    const refusing = getAddress('0x00000000000000000000000000000000000b1271');
    await anvil.setCode(accepting, answering('1626ba7e'));
    await anvil.setCode(refusing, answering('ffffffff'));
    const client = rpcClient(anvil.url);
    const signature = await HOLDER.signMessage({ message: 'challenge' });
    assert.deepEqual(await verifyEthereumSignature({ address: accepting, message: 'challenge', signature }, client), { ok: true });
    assert.deepEqual(await verifyEthereumSignature({ address: refusing, message: 'challenge', signature }, client), { ok: false, reason: 'bad-signature' });
    assert.deepEqual(
      await verifyEthereumSignature({ address: accepting, message: 'challenge', signature }),
      { ok: false, reason: 'bad-signature' },
      'without a node no contract wallet passes',
    );
    assert.deepEqual(await verifyEthereumSignature({ address: HOLDER.address, message: 'challenge', signature }, client), { ok: true });
    assert.deepEqual(await verifyEthereumSignature({ address: HOLDER.address, message: 'other', signature }, client), { ok: false, reason: 'bad-signature' });
    assert.deepEqual(await verifyEthereumSignature({ address: accepting, message: 'challenge', signature }, rpcClient('http://127.0.0.1:9')), {
      ok: false,
      reason: 'rpc-unavailable',
    });
    assert.deepEqual(
      await verifyEthereumSignature({ address: erc20, message: 'challenge', signature }, client),
      { ok: false, reason: 'bad-signature' },
      'a contract without isValidSignature',
    );
  });
});

describe('Koios and Blockfrost holdings (local server speaking their JSON)', () => {
  let server: Server;
  let base: string;
  const seen: { url: string; headers: Record<string, unknown> }[] = [];
  const holder = cardanoWallet();
  const stakeAddress = 'stake1uyehkck0lajq8gr28t9uxnuvgcqrc6070x3k9r8048z8y5gh6ffgw';
  const policy = 'ab'.repeat(28);
  const asset = token({ chain: 'cardano', policy_id: policy, asset_name: '4a4b' });
  before(async () => {
    server = createServer(
      (req, res) =>
        void (async () => {
          seen.push({ url: req.url!, headers: req.headers });
          const url = new URL(req.url!, 'http://x');
          let text = '';
          for await (const chunk of req) text += chunk;
          const body = text ? JSON.parse(text) : {};
          const send = (status: number, body: string) => res.writeHead(status, { 'content-type': 'application/json' }).end(body);
          const fillers = (n: number, row: (i: number) => object) => Array.from({ length: n }, (_, i) => row(i));
          if (url.pathname === '/koios/asset_addresses') {
            if (url.searchParams.get('_asset_policy') !== policy) return send(200, '[]');
            if (url.searchParams.get('_asset_name') === 'bad') return send(200, '{"not":"a list"}');
            return send(
              200,
              JSON.stringify([
                { payment_address: holder.address, stake_address: stakeAddress, quantity: '1' },
                { payment_address: 'addr1vformerholder', stake_address: null, quantity: '0' },
              ]),
            );
          }
          // Koios v1 per wallet: one row per asset, {address | stake_address, policy_id, asset_name, fingerprint, decimals, quantity}.
          if (url.pathname === '/koios/address_assets' || url.pathname === '/koios/account_assets') {
            const [who] = body._addresses ?? body._stake_addresses ?? [];
            if (who === 'addr1vmalformed') return send(200, '{"not":"a list"}');
            const quantity = who === holder.address || who === stakeAddress ? '1' : who === 'addr1vformerholder' ? '0' : null;
            const key = url.pathname === '/koios/address_assets' ? 'address' : 'stake_address';
            return send(
              200,
              JSON.stringify(quantity === null ? [] : [{ [key]: who, policy_id: policy, asset_name: '4a4b', fingerprint: 'asset1x', decimals: 0, quantity }]),
            );
          }
          if (url.pathname === `/bf/assets/${policy}4a4b/addresses`) {
            const page = Number(url.searchParams.get('page'));
            const rows = page === 1 ? fillers(100, (i) => ({ address: `addr1filler${i}`, quantity: '1' })) : [{ address: holder.address, quantity: '2' }];
            return send(200, JSON.stringify(rows));
          }
          if (url.pathname.startsWith('/bf/assets/')) return send(404, '{"status_code":404,"error":"Not Found"}');
          // Blockfrost per wallet: the address's amounts summed; a stake address's assets in pages of 100.
          if (url.pathname === `/bf/addresses/${holder.address}`) {
            return send(
              200,
              JSON.stringify({
                address: holder.address,
                amount: [
                  { unit: 'lovelace', quantity: '1000000' },
                  { unit: `${policy}4a4b`, quantity: '2' },
                ],
                stake_address: null,
                type: 'shelley',
                script: false,
              }),
            );
          }
          if (url.pathname.startsWith('/bf/addresses/')) return send(404, '{"status_code":404,"error":"Not Found"}');
          if (url.pathname === `/bf/accounts/${stakeAddress}/addresses/assets`) {
            const page = Number(url.searchParams.get('page'));
            return send(
              200,
              JSON.stringify(
                page === 1
                  ? fillers(100, (i) => ({ unit: `${'ee'.repeat(28)}${i.toString(16).padStart(2, '0')}`, quantity: '1' }))
                  : [{ unit: `${policy}4a4b`, quantity: '3' }],
              ),
            );
          }
          if (url.pathname === '/broken/asset_addresses' || url.pathname === '/broken/address_assets') return send(500, 'oops');
          return send(200, 'not json');
        })(),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  test('Koios: payment or stake address of a holder with a positive quantity', async () => {
    const koios = koiosProvider(`${base}/koios`, 'secret-token');
    assert.equal(await koios.holds(asset, holder.address), true);
    assert.equal(await koios.holds(asset, stakeAddress), true);
    assert.equal(await koios.holds(asset, 'addr1vformerholder'), false, 'quantity 0 is not holding');
    assert.equal(await koios.holds({ ...asset, policy_id: 'cd'.repeat(28) }, holder.address), false);
    assert.deepEqual(await koios.expectedHolders(asset), [holder.address]);
    assert.equal(seen.at(-1)!.headers.authorization, 'Bearer secret-token');
    await assert.rejects(koios.holds(asset, 'addr1vmalformed'), HoldingsUnavailable);
    await assert.rejects(koios.expectedHolders({ ...asset, asset_name: 'bad' }), HoldingsUnavailable);
    // One wallet is asked about (POST, JSON body), paged by offset/limit: never the token's holder list.
    const asked = seen.filter((s) => s.url.startsWith('/koios/address_assets')).map((s) => new URL(s.url, 'http://x').searchParams);
    assert.deepEqual([asked[0]!.get('offset'), asked[0]!.get('limit')], ['0', '1000']);
    await assert.rejects(koiosProvider(`${base}/broken`, null).holds(asset, holder.address), /HTTP 500/);
    await assert.rejects(koiosProvider(`${base}/other`, null).holds(asset, holder.address), /not JSON/);
    await assert.rejects(koiosProvider('http://127.0.0.1:9', null).holds(asset, holder.address), /unreachable/);
  });

  test('Blockfrost: one address per proof, a stake address and holder lists page until a short page, project_id header, 404 is nobody', async () => {
    const blockfrost = blockfrostProvider(`${base}/bf`, 'mainnetPROJECT');
    let before = seen.length;
    assert.equal(await blockfrost.holds(asset, holder.address), true);
    assert.deepEqual(
      seen.slice(before).map((s) => new URL(s.url, 'http://x').pathname),
      [`/bf/addresses/${holder.address}`],
    );
    assert.equal(seen.at(-1)!.headers.project_id, 'mainnetPROJECT');
    before = seen.length;
    assert.equal(await blockfrost.holds(asset, stakeAddress), true);
    assert.deepEqual(
      seen.slice(before).map((s) => new URL(s.url, 'http://x').searchParams.get('page')),
      ['1', '2'],
    );
    before = seen.length;
    assert.equal((await blockfrost.expectedHolders(asset)).length, 101);
    assert.deepEqual(
      seen.slice(before).map((s) => new URL(s.url, 'http://x').searchParams.get('page')),
      ['1', '2'],
    );
    assert.equal(await blockfrost.holds({ ...asset, asset_name: '00' }, holder.address), false);
    assert.equal(await blockfrost.holds(asset, 'addr1vneverused'), false, '404: an address never used holds nothing');
  });
});

for (const kind of DATABASES) {
  describe(`embedded holdings through the CLI (${kind})`, () => {
    const suite = sharedServer(kind);

    test('set, overwrite, unset; sandbox tokens always answer from the table; refusals change nothing', async () => {
      const { server, world } = suite;
      const db = server.ctx.db.kysely;
      const production = { teamId: world.teamId, mode: 'production' as const };
      const eth = await createToken(server.ctx, asCli(production), {
        chain: 'ethereum',
        name: 'W',
        symbol: 'W',
        supply: 1,
        contract_address: '0x14791697260E4c9A71f18484C9f997B308e59325',
        token_id: '1',
        standard: 'erc721',
      });
      const ada = await createToken(server.ctx, asCli(production), {
        chain: 'cardano',
        name: 'J',
        symbol: 'J',
        supply: 1,
        policy_id: 'ab'.repeat(28),
        asset_name: '4a4b',
      });
      const wallet = cardanoWallet();
      const lower = HOLDER.address.toLowerCase();

      const set = JSON.parse((await cli(server, ['holdings', 'set', '--chain', 'ethereum', '--address', lower, '--token', eth.id, '--json'])).stdout);
      assert.deepEqual(set, { token: eth.id, address: HOLDER.address, quantity: '1' }, 'stored in EIP-55 form');
      await cli(server, ['holdings', 'set', '--chain', 'ethereum', '--address', HOLDER.address, '--token', eth.id, '--quantity', '5']);
      await cli(server, [
        'holdings',
        'set',
        '--chain',
        'cardano',
        '--address',
        wallet.address,
        '--token',
        ada.id,
        '--quantity',
        '340282366920938463463374607431768211456',
      ]);
      const rows = await db.selectFrom('holdings').select(['token_id', 'address', 'quantity']).orderBy('token_id').orderBy('address').execute();
      assert.deepEqual(
        rows.sort((a, b) => a.address.localeCompare(b.address)),
        [
          { token_id: eth.id, address: HOLDER.address, quantity: '5' },
          { token_id: ada.id, address: wallet.address, quantity: '340282366920938463463374607431768211456' },
        ].sort((a, b) => a.address.localeCompare(b.address)),
      );

      const holdings = holdingsFor(server.ctx.config.wallets, db, null);
      const ethRow = (await db.selectFrom('tokens').selectAll().where('id', '=', eth.id).executeTakeFirstOrThrow()) as TokenRow;
      const adaRow = (await db.selectFrom('tokens').selectAll().where('id', '=', ada.id).executeTakeFirstOrThrow()) as TokenRow;
      assert.equal(holdings.forToken(ethRow).name, 'embedded');
      assert.equal(await holdings.forToken(ethRow).holds(ethRow, HOLDER.address), true);
      assert.equal(await holdings.forToken(ethRow).holds(ethRow, DEPLOYER.address), false);
      assert.deepEqual(await holdings.forToken(adaRow).expectedHolders(adaRow), [wallet.address]);

      const refusals: [string[], RegExp][] = [
        [['--chain', 'ethereum', '--address', '0x1234', '--token', eth.id], /not an Ethereum address/],
        [['--chain', 'cardano', '--address', 'addr1nope', '--token', ada.id], /not a Cardano Shelley address/],
        [['--chain', 'cardano', '--address', wallet.address, '--token', eth.id], /is on ethereum, not cardano/],
        [['--chain', 'solana', '--address', 'x', '--token', eth.id], /--chain must be cardano or ethereum/],
        [['--chain', 'ethereum', '--address', HOLDER.address, '--token', 'tok_unknown'], /no token tok_unknown/],
        [['--chain', 'ethereum', '--address', HOLDER.address, '--token', eth.id, '--quantity', '0'], /--quantity must be a whole number of at least 1/],
        [['--chain', 'ethereum', '--address', HOLDER.address, '--token', eth.id, '--quantity', '-1'], /--quantity/],
        [['--chain', 'ethereum', '--address', HOLDER.address, '--token', eth.id, '--quantity', '1.5'], /--quantity/],
      ];
      for (const [args, message] of refusals) {
        await assert.rejects(cli(server, ['holdings', 'set', ...args]), (e: { stderr: string; code: number }) => {
          assert.equal(e.code, 1);
          const lines = e.stderr.split('\n').filter((l) => l && !l.startsWith('tapproof: WARNING'));
          assert.equal(lines.length, 1, e.stderr);
          assert.match(lines[0]!, message);
          return true;
        });
      }
      assert.equal((await db.selectFrom('holdings').select('address').execute()).length, 2, 'refusals wrote nothing');

      await cli(server, ['holdings', 'unset', '--chain', 'ethereum', '--address', lower, '--token', eth.id]);
      assert.equal(await holdings.forToken(ethRow).holds(ethRow, HOLDER.address), false);
      await assert.rejects(cli(server, ['holdings', 'unset', '--chain', 'ethereum', '--address', HOLDER.address, '--token', eth.id]), /holds no/);
      assert.deepEqual(
        (await db.selectFrom('holdings').select('address').execute()).map((r) => r.address),
        [wallet.address],
      );
    });
  });
}
