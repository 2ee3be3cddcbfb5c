// End to end through the HTTP routes on a real local chain (anvil, OpenZeppelin
// 4.9 ERC-721 preset, holdings from the EVM RPC): the holder of the NFT proves
// ownership; after a transfer, the former holder's proof is refused with the
// documented error (docs/extension.md#proofs) and the new holder's succeeds; a smart-contract wallet (EIP-1271,
// behind OpenZeppelin's ERC1967Proxy) proves with its owner's signature.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { DATABASES, sharedServer, type TestServer, type SeededTeam } from '../kit/harness.js';
import { startAnvil, HOLDER, type Anvil } from './anvil.js';
import { creationCode, walletRuntime } from './contract-wallet.js';
import { catalog, ext, genuineScan } from './helpers.js';

const NFT = 'ERC721PresetMinterPauserAutoId';

for (const kind of DATABASES) {
  describe(`extension proofs on anvil (${kind})`, () => {
    const env: Record<string, string> = {};
    let anvil: Anvil;
    let contract: `0x${string}`;
    before(async () => {
      anvil = await startAnvil();
      contract = await anvil.deploy(NFT, ['Tapproof Watch', 'WTC', 'https://brand.example/nft/']);
      await anvil.write(contract, NFT, 'mint', [HOLDER.address]); // token 0
      Object.assign(env, { TAPPROOF_ETHEREUM_HOLDINGS: 'rpc', TAPPROOF_ETHEREUM_RPC_URL: anvil.url, TAPPROOF_ETHEREUM_CHAIN_ID: String(foundry.id) });
    });
    after(() => anvil?.stop());
    const suite = sharedServer(kind, env);

    /** A new genuine scan of a tag linked to token `tokenNumber` of the NFT contract, and a proof for it. */
    const nftToken = (server: TestServer, world: SeededTeam, tokenNumber: string) =>
      catalog(server, world, 'production', {
        chain: 'ethereum',
        name: 'Watch',
        symbol: 'WTC',
        supply: 1,
        contract_address: contract,
        token_id: tokenNumber,
        standard: 'erc721',
      });
    async function prove(links: { product: string; token: string }, address: `0x${string}`, signer: PrivateKeyAccount) {
      const { server, world } = suite;
      const scanned = await genuineScan(server, world, 'production', links);
      const path = `/verifications/${scanned.publicId}`;
      const c = (await ext(server, 'POST', `${path}/challenge`, { body: { address } })).body;
      assert.match(c.message, /Chain ID: 31337/);
      const proof = await ext(server, 'POST', `${path}/proof`, {
        body: { session_id: c.session_id, address, signature: await signer.signMessage({ message: c.message }) },
      });
      return { proof, path };
    }

    test('the holder proves; after a transfer the former holder is refused and the new one proves', async () => {
      const links = await nftToken(suite.server, suite.world, '0');
      const first = (await prove(links, HOLDER.address, HOLDER)).proof;
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.ownership.wallet_address, HOLDER.address);

      const buyer = privateKeyToAccount(generatePrivateKey());
      await anvil.write(contract, NFT, 'transferFrom', [HOLDER.address, buyer.address, 0n], HOLDER);
      const former = (await prove(links, HOLDER.address, HOLDER)).proof;
      assert.equal(former.status, 400);
      assert.deepEqual(former.body, { error: 'Address does not hold the required token' });
      const next = (await prove(links, buyer.address, buyer)).proof;
      assert.equal(next.status, 200, next.text);
      assert.equal(next.body.ownership.wallet_address, buyer.address);
    });

    test('a token id never minted → Address does not hold the required token', async () => {
      const links = await nftToken(suite.server, suite.world, '99');
      const r = (await prove(links, HOLDER.address, HOLDER)).proof;
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { error: 'Address does not hold the required token' });
    });

    test("EIP-1271: a contract wallet holding the NFT proves with its owner's signature; a stranger's is refused; a wallet without the NFT does not hold", async () => {
      const { server } = suite;
      const owner = privateKeyToAccount(generatePrivateKey());
      const implementation = await anvil.deployCode(creationCode(walletRuntime(owner.address)));
      // Two wallets of one owner: OpenZeppelin proxies over the same wallet code.
      const wallet = await anvil.deploy('ERC1967Proxy', [implementation, '0x']);
      const emptyWallet = await anvil.deploy('ERC1967Proxy', [implementation, '0x']);
      await anvil.write(contract, NFT, 'mint', [wallet]); // token 1
      const links = await nftToken(server, suite.world, '1');

      const stranger = privateKeyToAccount(generatePrivateKey());
      const refused = (await prove(links, wallet, stranger)).proof;
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, { error: 'Signature verification failed' });
      const notHeld = (await prove(links, emptyWallet, owner)).proof;
      assert.equal(notHeld.status, 400);
      assert.deepEqual(notHeld.body, { error: 'Address does not hold the required token' });

      const { proof, path } = await prove(links, wallet, owner);
      assert.equal(proof.status, 200, proof.text);
      assert.equal(proof.body.success, true);
      assert.equal(proof.body.ownership.status, 'verified');
      assert.equal(proof.body.ownership.wallet_address, wallet);
      assert.deepEqual((await ext(server, 'GET', path)).body.ownership, proof.body.ownership);
    });
  });
}
