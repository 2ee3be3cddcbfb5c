// Who owns a verification's item (docs/extension.md, "Ownership"): an Ethereum
// challenge needs no address, a used challenge is just that, the first proof
// must come within the scan's session window, and ownership follows a resale
// while earlier proofs stay visible to the team through the platform API.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { call, DATABASES, sharedServer, type TestServer } from '../kit/harness.js';
import { emulated, tamper, tapUrl } from '../verifications/helpers.js';
import { ETHEREUM_TOKEN, FUNGIBLE_TOKEN, catalog, ext, genuineScan, holdings, scan } from './helpers.js';
import { cardanoWallet } from './wallets.js';

const INVALID = { error: 'Invalid or expired challenge' };
const HELD = { error: 'Ownership is held by another wallet' };
const WINDOW_CLOSED = { error: 'The proof window of this scan has closed: scan the item again' };
const account = () => privateKeyToAccount(generatePrivateKey());

/** A challenge without a body, signed by `signer`, proven for `signer`'s address. */
async function prove(server: TestServer, path: string, signer: PrivateKeyAccount) {
  const c = await ext(server, 'POST', `${path}/challenge`);
  assert.equal(c.status, 200, c.text);
  const body = { session_id: c.body.session_id, address: signer.address, signature: await signer.signMessage({ message: c.body.message }) };
  return { response: await ext(server, 'POST', `${path}/proof`, { body }), body };
}

for (const kind of DATABASES) {
  describe(`extension ownership (${kind})`, () => {
    const suite = sharedServer(kind);

    /** A production item linked to the supply-100 Ethereum token, scanned once. */
    async function ethereumItem() {
      const { server, world } = suite;
      const links = await catalog(server, world, 'production', FUNGIBLE_TOKEN);
      const scanned = await genuineScan(server, world, 'production', links);
      return { server, world, links, scanned, path: `/verifications/${scanned.publicId}`, held: holdings(server) };
    }

    test('ethereum: a challenge without an address is one line naming the verification, token, chain, nonce and times; the proof names the signer', async () => {
      const { server, links, scanned, path, held } = await ethereumItem();
      const c = await ext(server, 'POST', `${path}/challenge`, { body: { uuid: undefined, verification_id: scanned.publicId } });
      assert.equal(c.status, 200, c.text);
      assert.equal(c.body.blockchain_type, 'ethereum');
      const m = /^127\.0\.0\.1:\d+ ownership (VRF_\w+) token (tok_\w+) network eip155:1 nonce [0-9A-Za-z]{17} issued (\S+) expires (\S+)$/.exec(c.body.message);
      assert.ok(m, c.body.message);
      assert.equal(m[1], scanned.publicId);
      assert.equal(m[2], links.token);
      assert.equal(Date.parse(m[4]!) - Date.parse(m[3]!), 5 * 60 * 1000);
      assert.equal(Date.parse(c.body.expires_at), Date.parse(m[4]!));
      const owner = account();
      const stranger = account();
      // Another key's signature for the owner's address.
      const forged = await ext(server, 'POST', `${path}/proof`, {
        body: { session_id: c.body.session_id, address: owner.address, signature: await stranger.signMessage({ message: c.body.message }) },
      });
      assert.deepEqual(forged.body, { error: 'Signature verification failed' });
      assert.deepEqual((await prove(server, path, owner)).response.body, { error: 'Address does not hold the required token' });
      await held.give(links.token, owner.address);
      const { response } = await prove(server, path, owner);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.ownership.wallet_address, owner.address);
    });

    test('a challenge that has answered a successful proof → 400 Invalid or expired challenge', async () => {
      const { server, links, path, held } = await ethereumItem();
      const owner = account();
      await held.give(links.token, owner.address);
      const { response, body } = await prove(server, path, owner);
      assert.equal(response.status, 200, response.text);
      const again = await ext(server, 'POST', `${path}/proof`, { body });
      assert.equal(again.status, 400);
      assert.deepEqual(again.body, INVALID);
    });

    test('resale: another holder is refused while the owner holds the token, then replaces the owner; the owner may prove again; proofs are kept for the team', async () => {
      const { server, world, scanned, links, path, held } = await ethereumItem();
      const [first, second] = [account(), account()];
      await held.give(links.token, first.address);
      await held.give(links.token, second.address);
      const proven = (await prove(server, path, first)).response;
      assert.equal(proven.status, 200, proven.text);
      // A new challenge is always issued; the second holder's valid proof is refused while the first holds.
      const refused = (await prove(server, path, second)).response;
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, HELD);
      server.clock.advance(1000);
      const again = (await prove(server, path, first)).response;
      assert.equal(again.status, 200, again.text);
      assert.ok(again.body.ownership.verified_at > proven.body.ownership.verified_at);
      // The first holder sells: the second one's proof replaces the owner.
      await held.take(links.token, first.address);
      server.clock.advance(1000);
      const resold = (await prove(server, path, second)).response;
      assert.equal(resold.status, 200, resold.text);
      assert.equal(resold.body.ownership.wallet_address, second.address);
      assert.deepEqual((await ext(server, 'GET', path)).body.ownership, resold.body.ownership);
      assert.deepEqual((await prove(server, path, first)).response.body, { error: 'Address does not hold the required token' });

      const history = await call(server, 'GET', `/verifications/${scanned.id}/ownership-proofs`, { key: world.production.key });
      assert.equal(history.status, 200, history.text);
      assert.deepEqual(
        history.body.data.map((p: any) => [p.type, p.attributes.wallet_address, p.attributes.verified_at, p.attributes.replaced_at]),
        [
          ['ownership-proofs', first.address, proven.body.ownership.verified_at, again.body.ownership.verified_at],
          ['ownership-proofs', first.address, again.body.ownership.verified_at, resold.body.ownership.verified_at],
          ['ownership-proofs', second.address, resold.body.ownership.verified_at, null],
        ],
      );
      assert.deepEqual(history.body.data[2], {
        type: 'ownership-proofs',
        id: resold.body.request_id,
        attributes: {
          verification_id: scanned.id,
          chain: 'ethereum',
          wallet_address: second.address,
          token_id: links.token,
          verified_at: resold.body.ownership.verified_at,
          replaced_at: null,
        },
      });
      assert.deepEqual(history.body.meta, { total_count: 3 });
      // The team's other mode and another team see nothing; an unknown id is 404 as well.
      const stranger = await server.seedTeam({ name: 'stranger' });
      for (const key of [world.sandbox.key, stranger.production.key]) {
        const r = await call(server, 'GET', `/verifications/${scanned.id}/ownership-proofs`, { key });
        assert.equal(r.status, 404, r.text);
        assert.deepEqual(
          r.body.errors.map((e: any) => e.status),
          ['404'],
        );
      }
      assert.equal((await call(server, 'GET', '/verifications/vrf_0000000000000000000000/ownership-proofs', { key: world.production.key })).status, 404);
      // A verification without proofs lists none.
      const unproven = await genuineScan(server, world);
      const empty = await call(server, 'GET', `/verifications/${unproven.id}/ownership-proofs`, { key: world.production.key });
      assert.deepEqual(empty.body, { data: [], meta: { total_count: 0 } });
    });

    test("the first proof needs a challenge issued within the tag's session window after the scan; later only the resale rule applies", async () => {
      const { server, world } = suite;
      const held = holdings(server);
      const link = await catalog(server, world, 'production', FUNGIBLE_TOKEN);
      const [owner, other] = [account(), account()];
      await held.give(link.token, owner.address);
      await held.give(link.token, other.address);
      // Outside the window (600 s, the default): the other holder cannot take the scan first, nor can anyone.
      const late = await genuineScan(server, world, 'production', link);
      const latePath = `/verifications/${late.publicId}`;
      server.clock.advance(601 * 1000);
      for (const signer of [other, owner]) {
        const r = (await prove(server, latePath, signer)).response;
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, WINDOW_CLOSED);
      }
      assert.equal((await ext(server, 'GET', latePath)).body.ownership, null);
      // A new tap of the item is a new verification: its owner proves just inside the window.
      const fresh = await scan(server, world, 'production', await late.tag.nextUrl());
      const path = `/verifications/${fresh.publicId}`;
      server.clock.advance(599 * 1000);
      const proven = (await prove(server, path, owner)).response;
      assert.equal(proven.status, 200, proven.text);
      // The other holder, after the window: the owner still holds it.
      server.clock.advance(10 * 60 * 1000);
      assert.deepEqual((await prove(server, path, other)).response.body, HELD);
    });

    test("a shared token (ERC-20, supply 100): once the owner holds none, another holder takes over only within the scan's window; an item with a one-holder token follows its holder at any time", async () => {
      const { server, world } = suite;
      const held = holdings(server);
      const link = await catalog(server, world, 'production', FUNGIBLE_TOKEN);
      const [a0, a1, a2] = [account(), account(), account()];
      await held.give(link.token, a0.address);
      await held.give(link.token, a1.address);
      const old = await genuineScan(server, world, 'production', link);
      const oldPath = `/verifications/${old.publicId}`;
      assert.equal((await prove(server, oldPath, a0)).response.status, 200);
      server.clock.advance(601 * 1000);
      assert.deepEqual((await prove(server, oldPath, a1)).response.body, HELD);
      // A0 moves its balance away: neither A1 nor A2 (one unit, never near the item) takes the old scan.
      await held.take(link.token, a0.address);
      await held.give(link.token, a2.address);
      for (const signer of [a1, a2]) {
        const r = (await prove(server, oldPath, signer)).response;
        assert.equal(r.status, 400, r.text);
        assert.deepEqual(r.body, WINDOW_CLOSED);
      }
      assert.equal((await ext(server, 'GET', oldPath)).body.ownership.wallet_address, a0.address);
      // A1 taps the item: within the new scan's window the proof is accepted.
      const tapped = await scan(server, world, 'production', await old.tag.nextUrl());
      const proven = (await prove(server, `/verifications/${tapped.publicId}`, a1)).response;
      assert.equal(proven.status, 200, proven.text);
      assert.equal(proven.body.ownership.wallet_address, a1.address);
      // Within a scan's window, the owner gone, another holder takes over that scan (it has the item in hand).
      await held.take(link.token, a1.address);
      const taken = (await prove(server, `/verifications/${tapped.publicId}`, a2)).response;
      assert.equal(taken.status, 200, taken.text);
      assert.equal(taken.body.ownership.wallet_address, a2.address);

      // Supply 1 and an ERC-721 token id (whatever its catalog supply): the on-chain holder is the owner, also long after the scan.
      for (const token of [{ ...ETHEREUM_TOKEN, supply: 1 }, ETHEREUM_TOKEN]) {
        const single = await catalog(server, world, 'production', token);
        const [seller, buyer] = [account(), account()];
        await held.give(single.token, seller.address);
        const sold = await genuineScan(server, world, 'production', single);
        const path = `/verifications/${sold.publicId}`;
        assert.equal((await prove(server, path, seller)).response.status, 200);
        server.clock.advance(3600 * 1000);
        await held.take(single.token, seller.address);
        await held.give(single.token, buyer.address);
        const resold = (await prove(server, path, buyer)).response;
        assert.equal(resold.status, 200, resold.text);
        assert.equal(resold.body.ownership.wallet_address, buyer.address);
      }
    });

    test('the verification object carries the TagTamper state: {permanent, current}, null for chips without one', async () => {
      const { server, world } = suite;
      const tt = await emulated(server, world.teamId, 'ntag_424_dna_tag_tamper');
      await tamper(server, tt.id, 'open');
      const opened = await scan(server, world, 'sandbox', await tapUrl(server, tt.id));
      const shown = await ext(server, 'GET', `/verifications/${opened.publicId}`, { mode: 'sandbox' });
      assert.equal(shown.status, 200, shown.text);
      assert.deepEqual(shown.body.tamper, { permanent: 'open', current: 'open' });
      const plain = await genuineScan(server, world);
      assert.equal((await ext(server, 'GET', `/verifications/${plain.publicId}`)).body.tamper, null);
      const url = `https://brand.example/tt/${opened.id}`;
      assert.equal((await ext(server, 'POST', '/claims', { mode: 'sandbox', body: { resource_url: url, verification_id: opened.publicId } })).status, 201);
      const listed = await ext(server, 'GET', `/claims?resource_url=${encodeURIComponent(url)}`, { mode: 'sandbox' });
      assert.deepEqual(listed.body.claims[0].tamper, { permanent: 'open', current: 'open' });
    });

    test('sandbox: cardano challenges name preprod and take testnet addresses (network id 0); mainnet addresses fail there', async () => {
      const { server, world } = suite;
      const held = holdings(server);
      const links = await catalog(server, world, 'sandbox');
      const testnet = cardanoWallet(0);
      const mainnet = cardanoWallet(1);
      for (const w of [testnet, mainnet]) await held.give(links.token, w.address);
      const attempt = async (wallet: typeof testnet) => {
        const scanned = await genuineScan(server, world, 'sandbox', links);
        const path = `/verifications/${scanned.publicId}`;
        const c = (await ext(server, 'POST', `${path}/challenge`, { mode: 'sandbox' })).body;
        assert.match(c.message, / network preprod nonce /);
        return ext(server, 'POST', `${path}/proof`, {
          mode: 'sandbox',
          body: { session_id: c.session_id, address: wallet.address, ...wallet.signData(c.message), blockchain_type: 'cardano' },
        });
      };
      const ok = await attempt(testnet);
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.ownership.wallet_address, testnet.address);
      assert.deepEqual((await attempt(mainnet)).body, { error: 'Signature verification failed' });
    });
  });
}
