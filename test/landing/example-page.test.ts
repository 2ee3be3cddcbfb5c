// The example brand page (examples/landing) as a brand's developer tests it: @tapproof/landing's test
// wallets installed in Chromium the way the README shows (the script entry, then installTestWallet), the
// real server on both engines, and an ownership proof completed end to end with each chain's test wallet.
// Once proven, the Prove ownership button is gone and the outcome has the focus. And the page's look:
// styled under its strict Content-Security-Policy, readable on a 375 px phone and at 1280 px, no
// serious axe-core violation (colour contrast included) before and after the proof.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { cardanoTestWallet, ethereumTestWallet, type TestWalletOptions } from '@tapproof/landing/test-wallets';
import type { Browser, Page } from 'playwright-core';
import { createProduct, createToken, linkTag } from '../../src/extension/catalog/service.js';
import { CARDANO_TOKEN, ETHEREUM_TOKEN, ext, holdings } from '../extension/helpers.js';
import { launchBrowser, pageErrors, seriousViolations } from '../kit/browser.js';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { emulated, tamper, tapUrl } from '../verifications/helpers.js';
import { startBrand, type BrandServer } from './brand.js';
import { cliActor } from '../../src/audit/record.js';
import { asCli } from '../kit/actors.js';

const TEST_WALLETS_SCRIPT = createRequire(import.meta.url).resolve('@tapproof/landing/test-wallets/script');

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Waits until an element of `role` shows exactly `text`. */
const shows = (page: Page, role: 'status' | 'alert' | 'heading', text: string) =>
  page
    .getByRole(role)
    .filter({ hasText: new RegExp(`^${escaped(text)}$`) })
    .waitFor();

/** The Owner row as the visitor reads it. */
const ownerRow = (page: Page) => page.locator('tapproof-verification dt:text-is("Owner") + dd').innerText();

let browser: Browser;

test("the READMEs state the example server's length as it is", () => {
  const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
  const lines = read('examples/landing/server.js').trimEnd().split('\n').length;
  assert.equal(/a brand's\s+server in (\d+) lines/.exec(read('README.md'))?.[1], String(lines));
  assert.equal(/in (\d+) lines of Node/.exec(read('examples/landing/README.md'))?.[1], String(lines));
});

interface Layout {
  /** Wider than the viewport: the visitor would scroll sideways. */
  overflows: boolean;
  textSize: number;
  main: { left: number; width: number };
  /** The heights of the element's visible buttons. */
  buttons: number[];
}

for (const kind of DATABASES) {
  describe(`the example landing page with a test wallet, in Chromium (${kind})`, () => {
    const suite = sharedServer(kind);
    let brand: BrandServer;
    before(async () => {
      browser = await launchBrowser();
      brand = await startBrand(suite.server.origin, suite.world.sandbox.key);
    });
    after(async () => {
      await brand?.stop();
      await browser?.close();
    });

    /** A sandbox tag on the brand's server, linked to a product and `token`; each call of `tap` is a new tap's URL. */
    async function item(token: Record<string, unknown>) {
      const { server, world } = suite;
      const scope = { teamId: world.teamId, mode: 'sandbox' as const };
      const links = {
        product: (await createProduct(server.ctx, asCli(scope), { name: 'Jacket', description: 'Waxed cotton', image_url: null })).id,
        token: (await createToken(server.ctx, asCli(scope), token)).id,
      };
      const { id } = await emulated(server, world.teamId, 'ntag_424_dna', { url: `${brand.origin}/p/${randomBytes(4).toString('hex')}` });
      await linkTag(server.ctx, id, links, cliActor());
      return { token: links.token, tap: () => tapUrl(server, id) };
    }

    /**
     * A browser profile with the test wallets installed as the README shows, opening `url`. Content-Security-
     * Policy violations are recorded (`axe`: the policy is bypassed, for axe-core's inline script).
     */
    async function visit(url: string, wallets: TestWalletOptions, options: { width?: number; axe?: boolean } = {}) {
      const context = await browser.newContext({ bypassCSP: options.axe ?? false, viewport: { width: options.width ?? 1280, height: 800 } });
      await context.addInitScript({ path: TEST_WALLETS_SCRIPT });
      await context.addInitScript(`TapproofTestWallets.installTestWallet(window, ${JSON.stringify(wallets)});`);
      await context.addInitScript(
        "addEventListener('securitypolicyviolation', (e) => (window.cspViolations ??= []).push(e.violatedDirective + ' ' + e.blockedURI));",
      );
      const page = await context.newPage();
      const errors = pageErrors(page);
      await page.goto(url);
      await shows(page, 'heading', 'Genuine');
      return {
        page,
        close: async () => {
          assert.deepEqual(errors, []);
          assert.deepEqual(await page.evaluate('window.cspViolations ?? []'), []);
          await context.close();
        },
      };
    }

    /** Proves on `page`: the status says so, the button is gone, the focus is on the outcome; the owner is `address`. */
    async function proves(page: Page, address: string) {
      await page.getByRole('button', { name: 'Prove ownership' }).click();
      await shows(page, 'status', 'Ownership proven.');
      assert.equal(await page.getByRole('button', { name: 'Prove ownership' }).count(), 0);
      assert.equal(await page.getByRole('alert').innerText(), '');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('role')), 'status');
      const vrf = (await page.locator('tapproof-verification').getAttribute('verification-id'))!;
      const { ownership } = (await ext(suite.server, 'GET', `/verifications/${vrf}`, { mode: 'sandbox' })).body;
      assert.equal(ownership.wallet_address, address);
      assert.match(await ownerRow(page), new RegExp(`^${escaped(address)} \\(proven \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\)$`));
    }

    test('the CIP-30 test wallet proves ownership of a Cardano token on the example page', async () => {
      const secretKey = randomBytes(32).toString('hex');
      const wallet = cardanoTestWallet({ secretKey }); // the same key as in the page: the same address
      const jacket = await item(CARDANO_TOKEN);
      await holdings(suite.server).give(jacket.token, wallet.address);
      const { page, close } = await visit(await jacket.tap(), { cardano: { secretKey } });
      assert.equal(await ownerRow(page), 'Not proven yet');
      assert.equal(await page.getByText('Signs with Tapproof test wallet (Cardano).').count(), 1);
      await proves(page, wallet.address);
      await close();
    });

    test('the EIP-1193 test wallet proves ownership of an Ethereum token; a declined signature is said so', async () => {
      const privateKey = `0x${randomBytes(32).toString('hex')}`;
      const wallet = ethereumTestWallet({ privateKey });
      const watch = await item(ETHEREUM_TOKEN);
      await holdings(suite.server).give(watch.token, wallet.address);
      const url = await watch.tap();

      const declining = await visit(url, { ethereum: { privateKey, decline: true } });
      await declining.page.getByRole('button', { name: 'Prove ownership' }).click();
      await shows(declining.page, 'alert', 'You declined the request in your wallet.');
      assert.equal(await declining.page.getByRole('button', { name: 'Prove ownership' }).count(), 1);
      await declining.close();

      const { page, close } = await visit(url, { ethereum: { privateKey } });
      assert.equal(await page.getByText('Signs with Ethereum wallet (Ethereum).').count(), 1);
      await proves(page, wallet.address);
      await close();
    });

    test('a tap of an item whose seal was opened says so on the example page, as the console does', async () => {
      const { server, world } = suite;
      const { id } = await emulated(server, world.teamId, 'ntag_424_dna_tag_tamper', { url: `${brand.origin}/p/${randomBytes(4).toString('hex')}` });
      const NOTICE = 'This item’s seal has been opened.';
      const intact = await visit(await tapUrl(server, id), {});
      await intact.page.locator('tapproof-verification dd').first().waitFor();
      assert.equal(await intact.page.getByRole('note', { name: NOTICE, exact: true }).count(), 0);
      await intact.close();

      await tamper(server, id, 'open');
      const opened = await visit(await tapUrl(server, id), {});
      await opened.page.getByRole('note', { name: NOTICE, exact: true }).waitFor({ timeout: 5000 });
      await opened.close();
    });

    test('the page is styled under its policy, fits a 375 px phone and 1280 px, and passes axe-core before and after the proof', async () => {
      const secretKey = randomBytes(32).toString('hex');
      const jacket = await item(CARDANO_TOKEN);
      await holdings(suite.server).give(jacket.token, cardanoTestWallet({ secretKey }).address);

      // Under the brand's Content-Security-Policy: both stylesheets apply, nothing is blocked.
      const strict = await visit(await jacket.tap(), { cardano: { secretKey } });
      assert.equal(await strict.page.locator('tapproof-verification section').evaluate((s) => getComputedStyle(s).borderTopLeftRadius), '12px');
      assert.notEqual(await strict.page.locator('body').evaluate((b) => getComputedStyle(b).fontFamily), 'Times New Roman');
      await strict.close();

      for (const width of [375, 1280]) {
        const { page, close } = await visit(await jacket.tap(), { cardano: { secretKey } }, { width, axe: true });
        await page.locator('tapproof-verification li').first().waitFor();
        // A text script: functions declared in one passed from here would carry tsx's `__name` helper.
        const layout = (): Promise<Layout> =>
          page.evaluate(`(() => {
            const box = (selector) => document.querySelector(selector).getBoundingClientRect();
            return {
              overflows: document.documentElement.scrollWidth > innerWidth,
              textSize: parseFloat(getComputedStyle(document.querySelector('tapproof-verification dd')).fontSize),
              main: { left: box('main').left, width: box('main').width },
              buttons: [...document.querySelectorAll('tapproof-verification button')]
                .filter((b) => b.getClientRects().length > 0)
                .map((b) => b.getBoundingClientRect().height),
            };
          })()`);
        const before = await layout();
        assert.equal(before.overflows, false, `${width} px`);
        assert.ok(before.textSize >= 16, `${width} px: text of ${before.textSize} px`);
        // Touch targets of 44 px.
        assert.equal(before.buttons.length, 2);
        for (const height of before.buttons) assert.ok(height >= 44, `${width} px: a button ${height} px high`);
        // One centred column of at most 42rem; on the phone, the whole width but its margins.
        if (width === 1280) assert.deepEqual(before.main, { left: (1280 - 672) / 2, width: 672 });
        else assert.deepEqual(before.main, { left: 0, width: 375 });
        assert.deepEqual(await seriousViolations(page), [], `${width} px`);

        await page.getByRole('button', { name: 'Prove ownership' }).click();
        await shows(page, 'status', 'Ownership proven.');
        const proven = await layout();
        assert.equal(proven.overflows, false, `${width} px, with the owner's address`);
        assert.equal(proven.buttons.length, 1); // Claim this item
        assert.deepEqual(await seriousViolations(page), [], `${width} px, proven`);
        await close();
      }
    });
  });
}
