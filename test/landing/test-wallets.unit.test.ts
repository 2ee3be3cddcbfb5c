// @tapproof/landing/test-wallets as a brand's test imports it (the built bundle): the CIP-30 test wallet's
// COSE_Sign1 and the EIP-1193 test wallet's personal_sign pass the platform's own verifiers (the ones the
// proof route runs), reproduce the published vectors (the Ethereum ones signature for signature from
// their known keys; the CIP-30 ones byte for byte but for the Ed25519 signature, whose keys are not
// published), refuse like real wallets, and install where the landing kit finds wallets.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { decode } from 'cborg';
import { findProver, walletError } from '@tapproof/landing/client';
import {
  CARDANO_TEST_WALLET_NAME,
  cardanoTestWallet,
  ethereumTestWallet,
  installTestWallet,
  type CardanoTestWallet,
  type Cip30TestApi,
} from '@tapproof/landing/test-wallets';
import { coseKey, protectedHeader } from '../../packages/landing/src/test-wallets/cardano.js';
import { encodeAddress, parseAddress, parseAddressBytes, verifyCardanoSignature, verifyEthereumSignature } from '../../src/extension/wallets/index.js';
import { loadVectors } from '../chips/vectors.js';

const cip30 = loadVectors('cardano_cip30.json');
const eip191 = loadVectors('ethereum_personal_sign.json');
const utf8Hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');
const fromHex = (text: string) => Uint8Array.from(Buffer.from(text.replace(/^0x/, ''), 'hex'));

/** What a wallet call threw. */
async function thrown(promise: Promise<unknown>): Promise<any> {
  return promise.then(
    () => assert.fail('resolved'),
    (error: unknown) => error,
  );
}

/** The test wallet's signData of `message`, as the proof route receives it. */
async function signed(wallet: CardanoTestWallet, message: string, signer = wallet.addressHex) {
  const api: Cip30TestApi = await wallet.enable();
  return { address: wallet.address, message, ...(await api.signData(signer, utf8Hex(message))) };
}

describe('the CIP-30 test wallet', () => {
  test('its signData passes the platform’s CIP-8 verifier, on either network, for any key and message', async () => {
    for (let i = 0; i < 16; i++) {
      const networkId = (i % 2) as 0 | 1;
      const wallet = cardanoTestWallet({ secretKey: randomBytes(32), networkId });
      const message = `Sign in to tapproof — ${randomBytes(i * 8).toString('base64')}`;
      assert.deepEqual(verifyCardanoSignature({ ...(await signed(wallet, message)), networkId }), { ok: true });
      // The platform's checks bite: another message, another network.
      assert.deepEqual(verifyCardanoSignature({ ...(await signed(wallet, message)), message: `${message}.` }), { ok: false, reason: 'payload-mismatch' });
      assert.deepEqual(verifyCardanoSignature({ ...(await signed(wallet, message)), networkId: 1 - networkId }), { ok: false, reason: 'network-mismatch' });
    }
  });

  test('one key is one enterprise address, given in bech32 and in hex, and the same signature every time', async () => {
    const key = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
    const testnet = cardanoTestWallet({ secretKey: key });
    const mainnet = cardanoTestWallet({ secretKey: fromHex(key), networkId: 1 });
    assert.match(testnet.address, /^addr_test1v/);
    assert.match(mainnet.address, /^addr1v/);
    for (const wallet of [testnet, mainnet]) {
      const parsed = parseAddress(wallet.address)!;
      assert.equal(Buffer.from(parsed.bytes).toString('hex'), wallet.addressHex);
      assert.equal(parsed.type, 6);
      assert.equal(encodeAddress(parseAddressBytes(parsed.bytes)!), wallet.address);
    }
    const api = await testnet.enable();
    assert.equal(await testnet.isEnabled(), true);
    assert.equal(await api.getNetworkId(), 0);
    assert.deepEqual(await api.getUsedAddresses(), [testnet.addressHex]);
    assert.equal(await api.getChangeAddress(), testnet.addressHex);
    // Ed25519 is deterministic; CIP-30 also takes the address in bech32.
    assert.deepEqual(await signed(testnet, 'hello'), await signed(cardanoTestWallet({ secretKey: key }), 'hello', testnet.address));
  });

  test('its COSE_Sign1 and COSE_Key are laid out byte for byte as the published wallets’ are', () => {
    for (const v of cip30.vectors.filter((v: any) => v.expected_valid && v.key)) {
      const [protectedBytes, unprotected, payload, signature] = decode(fromHex(v.signature), { useMaps: true });
      const headerAddress = decode(protectedBytes, { useMaps: true }).get('address');
      assert.equal(Buffer.from(protectedHeader(headerAddress)).toString('hex'), Buffer.from(protectedBytes).toString('hex'), v.id);
      const x = decode(fromHex(v.key), { useMaps: true }).get(-2);
      assert.equal(Buffer.from(coseKey(x)).toString('hex'), v.key, v.id);
      if (unprotected.get('hashed') === false) assert.equal(Buffer.from(payload).toString('utf8'), v.message, v.id);
      assert.equal(signature.length, 64);
    }
  });

  test('refuses like a wallet: another address, a declined request, a transaction', async () => {
    const wallet = cardanoTestWallet({ secretKey: randomBytes(32) });
    const other = cardanoTestWallet({ secretKey: randomBytes(32) });
    const api = await wallet.enable();
    const notMine = await thrown(api.signData(other.addressHex, '00'));
    assert.equal(notMine.code, 1); // DataSignError ProofGeneration
    assert.equal(walletError(notMine).declined, false);
    wallet.decline = true;
    const declined = await thrown(api.signData(wallet.addressHex, '00'));
    assert.deepEqual([declined.code, walletError(declined).declined], [3, true]);
    wallet.decline = false;
    assert.ok((await api.signData(wallet.addressHex, '00')).signature);
    assert.equal((await thrown(api.signTx('84'))).code, -2);
    assert.throws(() => cardanoTestWallet({ secretKey: 'abcd' }), { name: 'TypeError', message: 'secretKey must be 32 bytes (64 hex digits)' });
  });
});

describe('the EIP-1193 test wallet', () => {
  test('reproduces the published personal_sign vectors from their keys', async () => {
    // Anvil's account #0 and ethers v5's test wallet: keys their projects publish beside the vectors.
    const keys: Record<string, string> = {
      'viem-hello-world': '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
      'ethers5-hello-world': '0x0123456789012345678901234567890123456789012345678901234567890123',
    };
    for (const [id, privateKey] of Object.entries(keys)) {
      const v = eip191.vectors.find((v: any) => v.id === id);
      const wallet = ethereumTestWallet({ privateKey });
      assert.equal(wallet.address.toLowerCase(), v.address.toLowerCase(), id);
      assert.deepEqual(await wallet.request({ method: 'eth_requestAccounts' }), [v.address.toLowerCase()]);
      // As text and as the 0x-hex of its bytes (what the landing kit sends): the same signature.
      assert.equal(await wallet.request({ method: 'personal_sign', params: [v.message, v.address] }), v.signature, id);
      assert.equal(await wallet.request({ method: 'personal_sign', params: [`0x${utf8Hex(v.message)}`, v.address] }), v.signature, id);
    }
  });

  test('its signatures pass the platform’s EIP-191 verifier, for any key and message', async () => {
    for (let i = 0; i < 16; i++) {
      const wallet = ethereumTestWallet({ privateKey: randomBytes(32).toString('hex') });
      const message = `127.0.0.1 wants you to sign in with your Ethereum account:\n${wallet.address}\n\n${randomBytes(i * 8).toString('hex')}`;
      const signature = (await wallet.request({ method: 'personal_sign', params: [`0x${utf8Hex(message)}`, wallet.address.toLowerCase()] })) as string;
      assert.deepEqual(await verifyEthereumSignature({ address: wallet.address, message, signature }), { ok: true });
      assert.deepEqual(await verifyEthereumSignature({ address: wallet.address, message: `${message}.`, signature }), { ok: false, reason: 'bad-signature' });
    }
  });

  test('answers the chain, and refuses like MetaMask: a declined signature, another account, an unknown method', async () => {
    const wallet = ethereumTestWallet({ privateKey: randomBytes(32), chainId: 11155111 });
    assert.equal(await wallet.request({ method: 'eth_chainId' }), '0xaa36a7');
    assert.deepEqual(await wallet.request({ method: 'eth_accounts' }), [wallet.address.toLowerCase()]);
    assert.match(wallet.address, /^0x[0-9a-fA-F]{40}$/);
    const other = ethereumTestWallet({ privateKey: randomBytes(32) });
    assert.equal((await thrown(wallet.request({ method: 'personal_sign', params: ['0x00', other.address] }))).code, 4100);
    wallet.decline = true;
    const declined = await thrown(wallet.request({ method: 'personal_sign', params: ['0x00', wallet.address] }));
    assert.deepEqual([declined.code, walletError(declined).declined], [4001, true]);
    assert.equal((await thrown(wallet.request({ method: 'eth_sendTransaction', params: [] }))).code, 4200);
  });
});

describe('installTestWallet', () => {
  const global = globalThis as { cardano?: unknown; ethereum?: unknown };
  after(() => {
    delete global.cardano;
    delete global.ethereum;
  });

  test('puts the wallets where extensions put theirs, beside a wallet already there, and the kit finds them', () => {
    const eternl = { name: 'Eternl', enable: async () => ({}) };
    const page: { cardano?: Record<string, unknown>; ethereum?: unknown } = { cardano: { eternl } };
    const installed = installTestWallet(page, { cardano: { secretKey: randomBytes(32) }, ethereum: { privateKey: randomBytes(32) } });
    assert.deepEqual(Object.keys(page.cardano!), ['eternl', 'tapproof']);
    assert.equal(page.cardano!.tapproof, installed.cardano);
    assert.equal(page.ethereum, installed.ethereum);

    installTestWallet(globalThis, {
      cardano: { secretKey: randomBytes(32), key: 'testwallet', name: 'My test wallet' },
      ethereum: { privateKey: randomBytes(32) },
    });
    assert.equal(findProver('cardano', 'testwallet')?.name, 'My test wallet');
    assert.equal(findProver('ethereum')?.chain, 'ethereum');
    assert.equal(CARDANO_TEST_WALLET_NAME, 'Tapproof test wallet');
  });
});
