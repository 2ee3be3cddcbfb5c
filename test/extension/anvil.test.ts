// End to end on a real local chain (anvil, OpenZeppelin 4.9 ERC-721 preset):
// the holder of the NFT proves ownership; after a transfer, the former holder's
// proof is refused with the spec's error and the new holder's succeeds.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, createWalletClient, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { DATABASES, sharedServer } from '../harness.js';
import { catalog, ext, genuineScan } from './helpers.js';

const require = createRequire(import.meta.url);
const ANVIL = require.resolve('@foundry-rs/anvil-linux-amd64/package.json').replace(/package\.json$/, 'bin/anvil');
const PRESET = JSON.parse(readFileSync(require.resolve('@openzeppelin/contracts/build/contracts/ERC721PresetMinterPauserAutoId.json'), 'utf8')) as { abi: unknown[]; bytecode: Hex };
// anvil's well-known development accounts #0 (deployer) and #1 (first holder).
const DEPLOYER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const HOLDER = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

for (const kind of DATABASES) {
  describe(`extension proofs on anvil (${kind})`, () => {
    const env: Record<string, string> = {};
    let anvil: ChildProcess;
    let contract: Hex;
    let rpcUrl: string;
    before(async () => {
      const port = await freePort();
      rpcUrl = `http://127.0.0.1:${port}`;
      anvil = spawn(ANVIL, ['--port', String(port), '--silent'], { stdio: 'ignore' });
      const client = createPublicClient({ chain: foundry, transport: http(rpcUrl) });
      for (let i = 0; ; i++) {
        try {
          await client.getChainId();
          break;
        } catch (error) {
          if (i > 200) throw error;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      const deployer = createWalletClient({ account: DEPLOYER, chain: foundry, transport: http(rpcUrl) });
      const hash = await deployer.deployContract({ abi: PRESET.abi, bytecode: PRESET.bytecode, args: ['Tapproof Watch', 'WTC', 'https://brand.example/nft/'] });
      contract = (await client.waitForTransactionReceipt({ hash })).contractAddress!;
      // Token id 0 to the first holder.
      await client.waitForTransactionReceipt({ hash: await deployer.writeContract({ address: contract, abi: PRESET.abi, functionName: 'mint', args: [HOLDER.address] }) });
      Object.assign(env, { TAPPROOF_ETHEREUM_HOLDINGS: 'rpc', TAPPROOF_ETHEREUM_RPC_URL: rpcUrl, TAPPROOF_ETHEREUM_CHAIN_ID: String(foundry.id) });
    });
    after(() => void anvil?.kill('SIGTERM'));
    const suite = sharedServer(kind, env);

    test('the holder proves; after a transfer the former holder is refused and the new one proves', async () => {
      const { server, world } = suite;
      const links = await catalog(server, world, 'production', { chain: 'ethereum', name: 'Watch', symbol: 'WTC', supply: 1, contract_address: contract, token_id: '0', standard: 'erc721' });
      const prove = async (account: typeof HOLDER) => {
        const scanned = await genuineScan(server, world, 'production', links);
        const path = `/verifications/${scanned.publicId}`;
        const c = (await ext(server, 'POST', `${path}/challenge`, { body: { address: account.address } })).body;
        assert.match(c.message, /Chain ID: 31337/);
        return ext(server, 'POST', `${path}/proof`, { body: { session_id: c.session_id, address: account.address, signature: await account.signMessage({ message: c.message }) } });
      };
      const first = await prove(HOLDER);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.ownership.wallet_address, HOLDER.address);

      const buyer = privateKeyToAccount(generatePrivateKey());
      const client = createPublicClient({ chain: foundry, transport: http(rpcUrl) });
      const holder = createWalletClient({ account: HOLDER, chain: foundry, transport: http(rpcUrl) });
      await client.waitForTransactionReceipt({
        hash: await holder.writeContract({ address: contract, abi: PRESET.abi, functionName: 'transferFrom', args: [HOLDER.address, buyer.address, 0n] }),
      });
      const former = await prove(HOLDER);
      assert.equal(former.status, 400);
      assert.deepEqual(former.body, { error: 'Address does not hold the required token' });
      const next = await prove(buyer);
      assert.equal(next.status, 200, next.text);
      assert.equal(next.body.ownership.wallet_address, buyer.address);
    });

    test('a token id never minted → Address does not hold the required token', async () => {
      const { server, world } = suite;
      const links = await catalog(server, world, 'production', { chain: 'ethereum', name: 'Watch', symbol: 'WTC', supply: 1, contract_address: contract, token_id: '99', standard: 'erc721' });
      const scanned = await genuineScan(server, world, 'production', links);
      const path = `/verifications/${scanned.publicId}`;
      const c = (await ext(server, 'POST', `${path}/challenge`, { body: { address: HOLDER.address } })).body;
      const r = await ext(server, 'POST', `${path}/proof`, { body: { session_id: c.session_id, address: HOLDER.address, signature: await HOLDER.signMessage({ message: c.message }) } });
      assert.deepEqual(r.body, { error: 'Address does not hold the required token' });
    });
  });
}
