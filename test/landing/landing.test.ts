// The whole integration in Chromium, on the real server and both engines: a tap opens the example brand
// server (examples/landing), which verifies it with @tapproof/sdk and serves the page with
// <tapproof-verification> (@tapproof/landing); the visitor sees the verdict, claims the item and proves
// ownership with an injected wallet that signs for real (CIP-8 COSE_Sign1 on the sandbox base with a
// Cardano token, EIP-191 on the production base with an ERC-721 on anvil). A stranger's wallet is refused,
// a declined signature is said so, the token's next holder takes the ownership over after a real
// transfer, and an older tap's URL is shown as not genuine. A page that asks for the seal notice shows it
// exactly when the tap's signals say the seal has been opened.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { Tapproof } from '@tapproof/sdk';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import type { Mode } from '../../src/db/schema.js';
import { createProduct, createToken, linkTag } from '../../src/extension/catalog/service.js';
import { HOLDER, startAnvil, type Anvil } from '../extension/anvil.js';
import { CARDANO_TOKEN, ext, holdings, productionTag } from '../extension/helpers.js';
import { cardanoWallet, type CardanoWallet } from '../extension/wallets.js';
import { launchBrowser, pageErrors, seriousViolations } from '../kit/browser.js';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { cli, emulated, tamper, tapUrl } from '../verifications/helpers.js';
import { startBrand, type BrandServer } from './brand.js';
import { CARDANO_WALLET_NAME, injectCardano, injectEthereum, type WalletOptions } from './wallets.js';
import { cliActor } from '../../src/audit/record.js';
import { asCli } from '../kit/actors.js';

const NFT = 'ERC721PresetMinterPauserAutoId';

/** Puts a wallet in a browser profile, as its extension would. */
type Inject = (context: BrowserContext, options: WalletOptions) => Promise<void>;

interface Visitor {
  address: string;
  inject: Inject;
}

const cardanoVisitor = (wallet: CardanoWallet): Visitor => ({ address: wallet.address, inject: (c, o) => injectCardano(c, wallet, o) });
const ethereumVisitor = (account: PrivateKeyAccount): Visitor => ({ address: account.address, inject: (c, o) => injectEthereum(c, account, o) });

let browser: Browser;
const opened: { page: Page; errors: Error[] }[] = [];

/**
 * A new browser profile (with the wallet `inject` puts in it) opening `url`. The brand's page has a strict
 * Content-Security-Policy; its violations are recorded and asserted none. `axe`: the profile bypasses the
 * policy, because axe-core is injected as an inline script, which the policy rightly forbids.
 */
async function visit(url: string, inject?: Inject, options: WalletOptions & { axe?: boolean } = {}) {
  const context = await browser.newContext({ bypassCSP: options.axe ?? false });
  if (inject) await inject(context, options);
  await context.addInitScript(
    "addEventListener('securitypolicyviolation', (e) => (window.cspViolations ??= []).push(e.violatedDirective + ' ' + e.blockedURI));",
  );
  const page = await context.newPage();
  const errors = pageErrors(page);
  opened.push({ page, errors });
  await page.goto(url);
  return page;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Waits until an element of `role` shows exactly `text`. */
const shows = (page: Page, role: 'status' | 'alert' | 'heading', text: string) =>
  page
    .getByRole(role)
    .filter({ hasText: new RegExp(`^${escaped(text)}$`) })
    .waitFor();

/** The page as the visitor reads it once loaded: the verdict's rows, and the claims list. */
async function genuinePage(page: Page) {
  await shows(page, 'heading', 'Genuine');
  await page.locator('tapproof-verification li').first().waitFor();
  const terms = await page.locator('tapproof-verification dt').allInnerTexts();
  const values = await page.locator('tapproof-verification dd').allInnerTexts();
  return { rows: terms.map((term, i) => [term, values[i]]), claims: await page.locator('tapproof-verification li').allInnerTexts() };
}

/** The text that describes the Prove ownership button (its aria-describedby): which wallet will sign. */
async function walletHint(page: Page) {
  const id = await page.getByRole('button', { name: 'Prove ownership', exact: true }).getAttribute('aria-describedby');
  return page.locator(`#${id}`).innerText();
}

const ownerText = (ownership: { wallet_address: string; verified_at: string }) =>
  `${ownership.wallet_address} (proven ${ownership.verified_at.slice(0, 10)} ${ownership.verified_at.slice(11, 16)} UTC)`;

interface Scenario {
  mode: Mode;
  chain: string;
  /** A tag whose URL is on the brand's server, linked to a product and the token; the rows the page shows for them. */
  item(brand: BrandServer): Promise<{ tap(): Promise<string>; rows: string[][] }>;
  owner: Visitor;
  buyer: Visitor;
  stranger: Visitor;
  moveToBuyer(): Promise<void>;
}

for (const kind of DATABASES) {
  describe(`landing page in Chromium (${kind})`, () => {
    const env: Record<string, string> = {};
    let anvil: Anvil;
    let contract: `0x${string}`;
    const brands = {} as Record<Mode, BrandServer>;
    before(async () => {
      anvil = await startAnvil();
      contract = await anvil.deploy(NFT, ['Tapproof Watch', 'WTC', 'https://brand.example/nft/']);
      await anvil.write(contract, NFT, 'mint', [HOLDER.address]); // token 0
      Object.assign(env, { TAPPROOF_ETHEREUM_HOLDINGS: 'rpc', TAPPROOF_ETHEREUM_RPC_URL: anvil.url, TAPPROOF_ETHEREUM_CHAIN_ID: String(foundry.id) });
      browser = await launchBrowser();
    });
    const suite = sharedServer(kind, env);
    before(async () => {
      brands.sandbox = await startBrand(suite.server.origin, suite.world.sandbox.key);
      brands.production = await startBrand(suite.server.origin, suite.world.production.key);
    });
    after(async () => {
      await Promise.all(Object.values(brands).map((b) => b.stop()));
      await browser?.close();
      await anvil?.stop();
    });

    async function catalogEntries(mode: Mode, product: { name: string; description: string }, token: Record<string, unknown>) {
      const { server, world } = suite;
      const scope = { teamId: world.teamId, mode };
      return {
        product: (await createProduct(server.ctx, asCli(scope), { ...product, image_url: null })).id,
        token: (await createToken(server.ctx, asCli(scope), token)).id,
      };
    }

    async function journey(s: Scenario) {
      const { server } = suite;
      const item = await s.item(brands[s.mode]);
      const url = await item.tap();
      const ownership = async (id: string) => (await ext(server, 'GET', `/verifications/${id}`, { mode: s.mode })).body.ownership;

      // The owner taps the item: the brand's server verified the tap, the page shows it.
      const owner = await visit(url, s.owner.inject);
      const first = await genuinePage(owner);
      const vrf = (await owner.locator('tapproof-verification').getAttribute('verification-id'))!;
      assert.match(vrf, /^VRF_[0-9A-Za-z]+$/);
      assert.deepEqual(first, { rows: [...item.rows, ['Owner', 'Not proven yet']], claims: ['No claims yet.'] });
      const signsWith = `Signs with ${s.chain === 'Cardano' ? CARDANO_WALLET_NAME : 'Ethereum wallet'} (${s.chain}).`;
      assert.equal(await walletHint(owner), signsWith);

      /** Proves with `visitor`'s wallet on `page`: the page and the API then show that wallet as the owner. */
      async function proves(page: Page, visitor: Visitor) {
        await page.getByRole('button', { name: 'Prove ownership' }).click();
        await shows(page, 'status', 'Ownership proven.');
        assert.equal(await page.getByRole('button', { name: 'Prove ownership' }).count(), 0);
        const now = await ownership(vrf);
        assert.equal(now.wallet_address, visitor.address);
        assert.deepEqual(await genuinePage(page), {
          rows: [...item.rows, ['Owner', ownerText(now)]],
          claims: [`${vrf} (this tap): owned by ${visitor.address} — “Bought in Lyon”`],
        });
        return now;
      }

      // Claim, with a note.
      await owner.getByRole('textbox', { name: 'Note (optional)' }).fill('Bought in Lyon');
      await owner.getByRole('button', { name: 'Claim this item' }).click();
      await shows(owner, 'status', 'Claimed on this page.');
      assert.deepEqual((await genuinePage(owner)).claims, [`${vrf} (this tap): ownership not proven — “Bought in Lyon”`]);
      assert.equal(await owner.getByRole('button', { name: 'Claim this item' }).count(), 0);

      // Prove ownership: the wallet signs the challenge, the server checks the signature and the holding.
      const proven = await proves(owner, s.owner);
      assert.equal(await owner.getByRole('alert').innerText(), '');

      // A stranger's wallet on the same page (a reload within the tap's session answers the same verification).
      const stranger = await visit(url, s.stranger.inject);
      assert.deepEqual((await genuinePage(stranger)).rows, [...item.rows, ['Owner', ownerText(proven)]]);
      await stranger.getByRole('button', { name: 'Prove ownership' }).click();
      await shows(stranger, 'alert', 'This wallet does not hold the token of this item.');
      assert.equal(await stranger.getByRole('status').innerText(), '');
      assert.deepEqual(await ownership(vrf), proven);

      // The owner's wallet, but the visitor declines to sign.
      const declined = await visit(url, s.owner.inject, { decline: true });
      await genuinePage(declined);
      await declined.getByRole('button', { name: 'Prove ownership' }).click();
      await shows(declined, 'alert', 'You declined the request in your wallet.');

      // The token moves to a buyer, who proves on the same page: the ownership follows the token.
      await s.moveToBuyer();
      const buyer = await visit(url, s.buyer.inject);
      assert.deepEqual((await genuinePage(buyer)).rows, [...item.rows, ['Owner', ownerText(proven)]]);
      await proves(buyer, s.buyer);

      // A newer tap, in a browser without a wallet: genuine, and the page says which wallet is missing.
      const newer = await visit(await item.tap(), undefined, { axe: true });
      const newerPage = await genuinePage(newer);
      assert.deepEqual(await seriousViolations(newer), []);
      assert.deepEqual(newerPage.rows, [...item.rows, ['Owner', 'Not proven yet']]);
      assert.deepEqual(newerPage.claims, [`${vrf}: owned by ${s.buyer.address} — “Bought in Lyon”`]);
      await newer.getByRole('button', { name: 'Prove ownership' }).click();
      await shows(newer, 'alert', `No ${s.chain} wallet was found in this browser.`);
      assert.equal(await walletHint(newer), `No ${s.chain} wallet was found in this browser.`);
      // The buyer's wallet arrives late (an extension injecting itself after the load): the button finds it,
      // and the holder's first proof of this new tap is accepted.
      await s.buyer.inject(newer.context(), { page: newer });
      await newer.getByRole('button', { name: 'Prove ownership' }).click();
      await shows(newer, 'status', 'Ownership proven.');
      const newerVrf = (await newer.locator('tapproof-verification').getAttribute('verification-id'))!;
      assert.notEqual(newerVrf, vrf);
      const newerOwner = await ownership(newerVrf);
      assert.equal(newerOwner.wallet_address, s.buyer.address);
      assert.deepEqual((await genuinePage(newer)).rows, [...item.rows, ['Owner', ownerText(newerOwner)]]);
      assert.equal(await newer.getByRole('button', { name: 'Prove ownership' }).count(), 0);

      // The first tap's URL again, after the newer tap: replayed.
      const replayed = await visit(url, s.owner.inject, { axe: true });
      await shows(replayed, 'heading', 'Not genuine');
      assert.equal(
        await replayed.locator('tapproof-verification').innerText(),
        'Not genuine\n\nThis link does not come from a new tap of the original tag. Tap the item itself to check it.',
      );
      assert.equal(await replayed.getByRole('button').count(), 0);
      assert.deepEqual(await seriousViolations(replayed), []);

      for (const { page, errors } of opened.splice(0)) {
        assert.deepEqual(errors, [], page.url());
        assert.deepEqual(await page.evaluate('window.cspViolations ?? []'), [], page.url());
        await page.context().close();
      }
    }

    test('the brand server: the bundle it serves, a URL of no tag, a Host that is no host', async () => {
      const brand = brands.sandbox;
      const bundle = await fetch(`${brand.origin}/tapproof-landing.js`);
      assert.equal(bundle.status, 200);
      assert.equal(bundle.headers.get('content-type'), 'text/javascript');
      assert.deepEqual(Buffer.from(await bundle.arrayBuffer()), readFileSync(createRequire(import.meta.url).resolve('@tapproof/landing/bundle')));

      const noTag = await fetch(`${brand.origin}/p/no-such-tag?picc_data=00&cmac=00`);
      assert.equal(noTag.status, 200);
      assert.match(
        await noTag.text(),
        // No verification: no signals to show, and the opened-seal notice switched on for when there are.
        /<tapproof-verification api="http:\/\/127\.0\.0\.1:\d+\/ext\/sandbox" verification-id="" resource-url="http:\/\/127\.0\.0\.1:\d+\/p\/no-such-tag"\n {2}signals="" seal-notice><\/tapproof-verification>/,
      );

      const { hostname, port } = new URL(brand.origin);
      const status = await new Promise<number | undefined>((resolve, reject) =>
        get({ host: hostname, port, path: '/p/x', headers: { host: 'a b' } }, (r) => resolve(r.resume().statusCode)).on('error', reject),
      );
      assert.equal(status, 400);
      assert.equal((await fetch(`${brand.origin}/tapproof-landing.js`)).status, 200);
    });

    test('a genuine tap whose page cannot reach tapproof says so, neither genuine nor not', async () => {
      const { server, world } = suite;
      const { id } = await emulated(server, world.teamId, 'ntag_424_dna', { url: `${brands.sandbox.origin}/p/${randomBytes(4).toString('hex')}` });
      const context = await browser.newContext();
      // The visitor's network drops the API (the brand's server still reached it to verify the tap).
      await context.route(`${server.origin}/**`, (route) => route.abort());
      const page = await context.newPage();
      const errors = pageErrors(page);
      await page.goto(await tapUrl(server, id));
      await shows(page, 'alert', 'The item could not be checked right now. Reload the page to try again.');
      assert.equal(await page.locator('tapproof-verification').innerText(), 'The item could not be checked right now. Reload the page to try again.');
      assert.deepEqual(errors, []);
      await context.close();
    });

    test('the seal notice: shown when the page asks for it and the tap carries tamper_opened or tamper_open, never otherwise', async () => {
      const { server, world } = suite;
      const sdk = new Tapproof({ baseUrl: server.origin, key: world.sandbox.key });
      const api = `${server.origin}${server.ctx.config.extPrefix}/sandbox`;
      const bundle = readFileSync(createRequire(import.meta.url).resolve('@tapproof/landing/bundle'));
      // A brand's page whose element has the attributes of the query (names and values as they are written).
      const brand = createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://brand.invalid');
        if (url.pathname === '/tapproof-landing.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
        const attributes = [...url.searchParams].map(([name, value]) => ` ${name}="${value.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)}"`).join('');
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Check your item</title><script type="module" src="/tapproof-landing.js"></script></head>
<body><main><h1>Check your item</h1><tapproof-verification api="${api}"${attributes}></tapproof-verification></main></body></html>`);
      });
      await new Promise<void>((resolve) => brand.listen(0, '127.0.0.1', resolve));
      const origin = `http://127.0.0.1:${(brand.address() as AddressInfo).port}`;
      const context = await browser.newContext({ bypassCSP: true });
      const errors: Error[][] = [];

      /** The page with the element's `attributes`, once it shows its verdict. */
      async function open(attributes: Record<string, string>, verdict = 'Genuine') {
        const page = await context.newPage();
        errors.push(pageErrors(page));
        await page.goto(`${origin}/p/item?${new URLSearchParams(attributes)}`);
        await shows(page, 'heading', verdict);
        return page;
      }
      const notices = (page: Page) => page.getByRole('note').allInnerTexts();
      const NOTICE = 'This item’s seal has been opened. Its tag has reported the seal broken. If it was sold to you sealed, ask the seller.';

      /** What the brand's server passes on: the tap's verification id and signals, as the SDK gave them. */
      async function verified(tagId: string) {
        const { attributes } = await sdk.verifications.verify(await tapUrl(server, tagId));
        assert.equal(attributes.genuine, true);
        return { id: attributes.verification_id, signals: attributes.signals };
      }
      const seal = async (page: Page) => (await genuinePage(page)).rows.find(([term]) => term === 'Seal')?.[1];

      try {
        const sealed = (await emulated(server, world.teamId, 'ntag_424_dna_tag_tamper')).id;
        // The seal intact: asked for, no notice.
        const intact = await verified(sealed);
        assert.deepEqual(intact.signals, []);
        const quiet = await open({ 'verification-id': intact.id, signals: '', 'seal-notice': '' });
        assert.equal(await seal(quiet), 'Intact');
        assert.deepEqual(await notices(quiet), []);

        // The first tap that finds the loop open: tamper_opened. The notice when asked for, named by its sentence.
        await tamper(server, sealed, 'open');
        const opened = await verified(sealed);
        assert.deepEqual(opened.signals, ['tamper_opened']);
        const asked = await open({ 'verification-id': opened.id, signals: opened.signals.join(' '), 'seal-notice': '' });
        assert.deepEqual(await notices(asked), [NOTICE]);
        assert.equal(await asked.getByRole('note', { name: 'This item’s seal has been opened.', exact: true }).count(), 1);
        assert.equal(await seal(asked), 'Open');
        assert.deepEqual(await seriousViolations(asked), []);
        // Not asked for: the seal row says it, no notice.
        const unasked = await open({ 'verification-id': opened.id, signals: opened.signals.join(' ') });
        assert.equal(await seal(unasked), 'Open');
        assert.deepEqual(await notices(unasked), []);
        // Asked for later: a change of the attribute reloads the element.
        await unasked.locator('tapproof-verification').evaluate((element) => element.setAttribute('seal-notice', ''));
        await unasked.getByRole('note', { name: 'This item’s seal has been opened.' }).waitFor();
        assert.deepEqual(await notices(unasked), [NOTICE]);

        // Every later genuine tap: tamper_open, though the loop is closed again; the signals comma-separated too.
        await tamper(server, sealed, 'closed');
        const later = await verified(sealed);
        assert.deepEqual(later.signals, ['tamper_open']);
        const again = await open({ 'verification-id': later.id, signals: `counter_gap,${later.signals.join(',')}`, 'seal-notice': '' });
        assert.equal(await seal(again), 'Opened before, closed now');
        assert.deepEqual(await notices(again), [NOTICE]);

        // Another signal is no opened seal.
        const plain = (await emulated(server, world.teamId, 'ntag_424_dna')).id;
        await verified(plain);
        for (let i = 0; i < 6; i++) await tapUrl(server, plain);
        const gap = await verified(plain);
        assert.deepEqual(gap.signals, ['counter_gap']);
        assert.deepEqual(await notices(await open({ 'verification-id': gap.id, signals: gap.signals.join(' '), 'seal-notice': '' })), []);

        // A tap that is not genuine shows no notice, whatever the page passes.
        const forged = await open({ 'verification-id': '', signals: 'tamper_open', 'seal-notice': '' }, 'Not genuine');
        assert.deepEqual(await notices(forged), []);
        assert.deepEqual(errors.flat(), []);
      } finally {
        await context.close();
        await new Promise((resolve) => brand.close(resolve));
      }
    });

    test('Cardano on the sandbox base: emulator tap → genuine → claim → CIP-30 proof → stranger refused → resale → replay', async () => {
      const { server, world } = suite;
      const [owner, buyer, stranger] = [cardanoWallet(0), cardanoWallet(0), cardanoWallet(0)];
      let token = '';
      await journey({
        mode: 'sandbox',
        chain: 'Cardano',
        async item(brand) {
          const links = await catalogEntries('sandbox', { name: 'Jacket', description: 'Waxed cotton' }, CARDANO_TOKEN);
          token = links.token;
          await holdings(server).give(token, owner.address);
          const { id } = await emulated(server, world.teamId, 'ntag_424_dna_tag_tamper', { url: `${brand.origin}/p/${randomBytes(4).toString('hex')}` });
          await linkTag(server.ctx, id, links, cliActor());
          return {
            tap: () => tapUrl(server, id),
            rows: [
              ['Product', 'Jacket'],
              ['Description', 'Waxed cotton'],
              ['Token', 'Tapproof Jacket #1 (JKT) on Cardano'],
              ['Seal', 'Intact'],
            ],
          };
        },
        owner: cardanoVisitor(owner),
        buyer: cardanoVisitor(buyer),
        stranger: cardanoVisitor(stranger),
        // What an operator of the embedded holdings does when the token changes hands.
        async moveToBuyer() {
          await cli(server, ['holdings', 'unset', '--chain', 'cardano', '--address', owner.address, '--token', token]);
          await cli(server, ['holdings', 'set', '--chain', 'cardano', '--address', buyer.address, '--token', token]);
        },
      });
    });

    test('Ethereum on the production base: tap → genuine → claim → EIP-1193 proof → stranger refused → transfer on anvil → replay', async () => {
      const { server, world } = suite;
      const buyer = privateKeyToAccount(generatePrivateKey());
      await journey({
        mode: 'production',
        chain: 'Ethereum',
        async item(brand) {
          const links = await catalogEntries(
            'production',
            { name: 'Watch', description: 'Steel, automatic' },
            { chain: 'ethereum', name: 'Tapproof Watch', symbol: 'WTC', supply: 1, contract_address: contract, token_id: '0', standard: 'erc721' },
          );
          const tag = await productionTag(server, world, `${brand.origin}/p/${randomBytes(4).toString('hex')}`);
          await linkTag(server.ctx, tag.id, links, cliActor());
          return {
            tap: async () => tag.tap(),
            rows: [
              ['Product', 'Watch'],
              ['Description', 'Steel, automatic'],
              ['Token', 'Tapproof Watch (WTC) on Ethereum'],
            ],
          };
        },
        owner: ethereumVisitor(HOLDER),
        buyer: ethereumVisitor(buyer),
        stranger: ethereumVisitor(privateKeyToAccount(generatePrivateKey())),
        moveToBuyer: () => anvil.write(contract, NFT, 'transferFrom', [HOLDER.address, buyer.address, 0n], HOLDER),
      });
    });
  });
}
