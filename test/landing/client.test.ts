// @tapproof/landing outside the page, as built by `npm ci`: the extension client against the real server
// on both engines (both bases, the API's errors as ExtensionError), the CIP-30 prover choosing the
// holding address among a wallet's addresses and the EIP-1193 prover, both with real signatures; the
// bech32 encoder against @scure/base; and the browser bundle: one self-contained file, small.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { describe, test } from 'node:test';
import { bech32 } from '@scure/base';
import {
  ExtensionClient,
  ExtensionError,
  WalletError,
  cardanoBech32,
  cardanoProver,
  ethereumProver,
  extensionBase,
  refusalText,
  sealText,
  type Cip30Api,
} from '@tapproof/landing/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { CARDANO_TOKEN, ETHEREUM_TOKEN, catalog, genuineScan, holdings, replayedScan } from '../extension/helpers.js';
import { cardanoWallet, type CardanoWallet } from '../extension/wallets.js';
import { DATABASES, sharedServer } from '../kit/harness.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** A CIP-30 API over several real wallets: its used addresses in this order, each signing for itself. */
function cip30(...wallets: CardanoWallet[]): { enable(): Promise<Cip30Api> } {
  const api: Cip30Api = {
    getUsedAddresses: async () => wallets.map((w) => hex(w.addressBytes)),
    getChangeAddress: async () => hex(wallets[0]!.addressBytes),
    signData: async (address, payload) => wallets.find((w) => hex(w.addressBytes) === address)!.signData(Buffer.from(payload, 'hex').toString('utf8')),
  };
  return { enable: async () => api };
}

/** What a call threw. */
async function thrown(promise: Promise<unknown>): Promise<any> {
  return promise.then(
    () => assert.fail('resolved'),
    (error: unknown) => error,
  );
}

for (const kind of DATABASES) {
  describe(`@tapproof/landing client (${kind})`, () => {
    const suite = sharedServer(kind);
    const client = (mode: 'production' | 'sandbox') =>
      new ExtensionClient(extensionBase(suite.server.origin, { sandbox: mode === 'sandbox', prefix: suite.server.ctx.config.extPrefix }));

    test('lookup, claim and claims on the base of the scan’s mode; the other base does not know it', async () => {
      const { server, world } = suite;
      const links = await catalog(server, world, 'sandbox');
      const scanned = await genuineScan(server, world, 'sandbox', links);
      const shown = await client('sandbox').lookup(scanned.publicId);
      assert.equal(shown.verification_id, scanned.publicId);
      assert.deepEqual(shown.product, { id: links.product, name: 'Jacket', image_url: 'https://brand.example/jacket.png', description: 'Waxed cotton' });
      assert.equal(shown.ownership, null);

      const missing = await thrown(client('production').lookup(scanned.publicId));
      assert.ok(missing instanceof ExtensionError);
      assert.equal(missing.status, 404);
      assert.equal(missing.message, 'Verification not found');
      assert.match(missing.requestId ?? '', /\S/);

      const page = `https://brand.example/p/${scanned.publicId}`;
      const created = await client('sandbox').claim({ resource_url: page, verification_id: scanned.publicId, note: 'first' });
      assert.deepEqual(Object.keys(created).sort(), ['id', 'verification_id']);
      assert.equal(created.verification_id, scanned.publicId);
      const claims = await client('sandbox').claims(page);
      assert.deepEqual(
        claims.map((c) => [c.id, c.verification_id, c.resource_url, c.note]),
        [[created.id, scanned.publicId, page, 'first']],
      );
      assert.deepEqual(await client('production').claims(page), []);
    });

    test('the API’s refusals arrive as ExtensionError with status, message and details', async () => {
      const { server, world } = suite;
      const replayed = await replayedScan(server, world, 'production');
      const refused = await thrown(client('production').claim({ resource_url: 'https://brand.example/p/r', verification_id: replayed.publicId }));
      assert.equal(refused.status, 400);
      assert.equal(refused.message, 'Verification is not valid');
      assert.deepEqual(refused.details, [{ field: 'verification_id', message: 'the scan was not genuine (replayed)' }]);

      const bad = await thrown(client('production').claim({ resource_url: 'ftp://x', verification_id: 'vrf_x' }));
      assert.equal(bad.message, 'Validation failed');
      assert.deepEqual(
        bad.details.map((d: { field: string }) => d.field),
        ['resource_url', 'verification_id'],
      );

      const untokened = await genuineScan(server, world, 'production');
      const noToken = await thrown(client('production').challenge(untokened.publicId));
      assert.equal(noToken.status, 400);
      assert.equal(noToken.message, 'No token is linked to this verification');
      assert.equal(refusalText(noToken), 'No token is linked to this verification.');
      assert.equal(refusalText(await thrown(client('production').lookup('vrf_123456'))), 'Invalid verification ID format.');
    });

    test('the CIP-30 prover signs with the address that holds the token, not the wallet’s first', async () => {
      const { server, world } = suite;
      const links = await catalog(server, world, 'production', CARDANO_TOKEN);
      const [other, holder] = [cardanoWallet(), cardanoWallet()];
      await holdings(server).give(links.token, holder.address);
      const scanned = await genuineScan(server, world, 'production', links);
      const result = await cardanoProver('test', cip30(other, holder)).prove(client('production'), scanned.publicId);
      assert.equal(result.success, true);
      assert.equal(result.ownership.wallet_address, holder.address);

      // A wallet none of whose addresses holds it signs with its first and is refused.
      const again = await genuineScan(server, world, 'production', links);
      const refused = await thrown(cardanoProver('test', cip30(other)).prove(client('production'), again.publicId));
      assert.equal(refusalText(refused), 'This wallet does not hold the token of this item.');
    });

    test('the EIP-1193 prover: Sign-In with Ethereum message, personal_sign, proof; a declined request is a WalletError', async () => {
      const { server, world } = suite;
      const links = await catalog(server, world, 'production', ETHEREUM_TOKEN);
      const account = privateKeyToAccount(generatePrivateKey());
      await holdings(server).give(links.token, account.address);
      const signed: string[] = [];
      const provider = (decline: boolean) => ({
        request: async ({ method, params }: { method: string; params?: unknown[] }) => {
          if (method === 'eth_requestAccounts') return [account.address.toLowerCase()];
          if (decline) throw Object.assign(new Error('User rejected the request.'), { code: 4001 }); // an EIP-1193 ProviderRpcError
          const [data, address] = params as [`0x${string}`, string];
          assert.equal(address, account.address.toLowerCase());
          signed.push(Buffer.from(data.slice(2), 'hex').toString('utf8'));
          return account.signMessage({ message: { raw: data } });
        },
      });
      const scanned = await genuineScan(server, world, 'production', links);
      const result = await ethereumProver(provider(false)).prove(client('production'), scanned.publicId);
      assert.equal(result.ownership.wallet_address, account.address);
      assert.equal(signed.length, 1);
      assert.match(signed[0]!, new RegExp(`^127\\.0\\.0\\.1(:\\d+)? wants you to sign in with your Ethereum account:\\n${account.address}\\n`));

      const declined = await thrown(ethereumProver(provider(true)).prove(client('production'), scanned.publicId));
      assert.ok(declined instanceof WalletError);
      assert.equal(declined.declined, true);
      assert.equal(refusalText(declined), 'You declined the request in your wallet.');
    });
  });
}

describe('@tapproof/landing pieces without a server', () => {
  test('cardanoBech32 writes what @scure/base writes, for every Shelley address kind and both networks', () => {
    for (const header of [0x01, 0x11, 0x61, 0x60, 0x71, 0xe1, 0xe0, 0xf0]) {
      const length = header >> 4 <= 3 ? 57 : 29;
      const bytes = Uint8Array.from({ length }, (_, i) => (i === 0 ? header : (i * 37 + header) & 0xff));
      const prefix = (header >> 4 >= 14 ? 'stake' : 'addr') + ((header & 15) === 0 ? '_test' : '');
      assert.equal(cardanoBech32(hex(bytes)), bech32.encode(prefix, bech32.toWords(bytes), 1023));
    }
    // Not a Shelley address in hex: returned as it came.
    for (const other of ['addr1qxyz', '82d818', hex(Uint8Array.from({ length: 29 }, () => 0x82))]) assert.equal(cardanoBech32(other), other);
  });

  test('the seal in words, for every TagTamper state pair', () => {
    const states = ['closed', 'open', 'not_enabled'] as const;
    const words = states.flatMap((permanent) => states.map((current) => `${permanent}/${current}: ${sealText({ permanent, current })}`));
    assert.deepEqual(words, [
      'closed/closed: Intact',
      'closed/open: Open',
      'closed/not_enabled: Not monitored',
      'open/closed: Opened before, closed now',
      'open/open: Open',
      'open/not_enabled: Opened before',
      'not_enabled/closed: Not monitored',
      'not_enabled/open: Open',
      'not_enabled/not_enabled: Not monitored',
    ]);
  });

  test('the browser bundle is one self-contained ES module of at most 6 KB gzipped', () => {
    const bundle = readFileSync(createRequire(import.meta.url).resolve('@tapproof/landing/bundle'));
    assert.doesNotMatch(bundle.toString(), /\bimport\s*[{("']|\brequire\(/);
    assert.match(bundle.toString(), /customElements\.define\("tapproof-verification"/);
    assert.ok(gzipSync(bundle, { level: 9 }).length <= 6 * 1024, `${gzipSync(bundle, { level: 9 }).length} bytes gzipped`);
  });
});
