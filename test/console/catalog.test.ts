// The console's catalog in Chromium against the real server on both engines: a write key creates a
// product and a token, links a tag to them on the tag's page, sets and unsets a holding; the API and
// the database agree afterwards, a read key sees the lists without a form, and the page passes axe and
// fits a phone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createKey } from '../../src/keys/service.js';
import { DATABASES, call, type SeededTeam, type TestServer } from '../kit/harness.js';
import { createdTag } from '../writer/helpers.js';
import {
  assertAccessible,
  assertFitsWidth,
  consoleTab,
  go,
  message,
  signIn,
  tableRows,
  type ConsoleTab,
  signedInConsole,
  type SignedInConsole,
} from './console-page.js';

const CONTRACT = '0x52908400098527886e0f7030069857d2e4169ee7';
const HOLDER = '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359';
const HOLDER_EIP55 = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

for (const kind of DATABASES) {
  describe(`console catalog (${kind})`, () => {
    let signedIn: SignedInConsole;
    let server: TestServer;
    let browser: Browser;
    let world: SeededTeam;
    let tab: ConsoleTab;

    before(async () => {
      signedIn = await signedInConsole(kind);
      ({ server, browser, world, tab } = signedIn);
    });
    after(() => signedIn.close());

    test('create a product and a token, link a tag, set and unset a holding', async () => {
      const { page } = tab;
      const key = world.sandbox.key;
      await go(page, 'Catalog');
      await page.getByText('No products yet.').waitFor();
      await assertAccessible(page, 'empty catalog');

      const product = page.getByRole('form', { name: 'Create a product' });
      await product.getByLabel('Name').fill('Sneaker');
      await product.getByLabel('Description (optional)').fill('A shoe');
      await product.getByRole('button', { name: 'Create product' }).click();
      const productId = (await message(page, 'status', 'Created product')).replace(/^Created product (prd_\w+)\.$/, '$1');
      assert.deepEqual(
        (await tableRows(page, 'Products')).map((row) => row.slice(0, 3)),
        [[productId, 'Sneaker', 'A shoe']],
      );
      assert.equal(await page.getByRole('form', { name: 'Create a product' }).getByLabel('Name').inputValue(), '', 'a fresh form');

      // A refused token names each field the API refused, and creates nothing.
      const token = page.getByRole('form', { name: 'Create a token' });
      await token.getByLabel('Name').fill('Edition');
      await token.getByLabel('Symbol').fill('ED');
      await token.getByLabel('Supply').fill('100');
      await token.getByLabel('Contract address').fill('0x1234');
      await token.getByLabel('Token id (decimal)').fill('x');
      await token.getByRole('button', { name: 'Create token' }).click();
      const refusal = await message(page, 'alert', '422');
      assert.match(refusal, /contract_address must be 0x followed by 40 hex characters; token_id must be a whole number/);
      assert.deepEqual((await call(server, 'GET', '/tokens', { key })).body.data, []);
      await token.getByLabel('Contract address').fill(CONTRACT);
      await token.getByLabel('Token id (decimal)').fill('7');
      await token.getByRole('button', { name: 'Create token' }).click();
      const tokenId = (await message(page, 'status', 'Created token')).replace(/^Created token (tok_\w+)\.$/, '$1');
      const tokens = (await call(server, 'GET', '/tokens', { key })).body.data;
      assert.deepEqual(
        tokens.map((t: any) => [t.id, t.attributes.name, t.attributes.symbol, t.attributes.supply, t.attributes.standard, t.attributes.token_id]),
        [[tokenId, 'Edition', 'ED', 100, 'erc721', '7']],
      );

      // Holdings of the token.
      const holdings = page.getByRole('region', { name: 'Holdings' });
      await holdings.getByText('No one holds Edition').waitFor();
      await holdings.getByLabel('Wallet address').fill(HOLDER);
      await holdings.getByLabel('Quantity').fill('3');
      await holdings.getByRole('button', { name: 'Set holding' }).click();
      await message(page, 'status', `${HOLDER_EIP55} holds 3 of Edition`);
      assert.deepEqual(
        (await tableRows(page, 'Holdings of Edition')).map((row) => row.slice(0, 2)),
        [[HOLDER_EIP55, '3']],
      );
      const held = await server.ctx.db.kysely.selectFrom('holdings').select(['address', 'quantity']).where('token_id', '=', tokenId).execute();
      assert.deepEqual(held, [{ address: HOLDER_EIP55, quantity: '3' }]);
      await assertAccessible(page, 'catalog with a product, a token and a holding');
      await holdings.getByRole('button', { name: `Remove the holding of ${HOLDER_EIP55}` }).click();
      await message(page, 'status', `Removed ${HOLDER_EIP55}'s holding of Edition`);
      assert.deepEqual((await call(server, 'GET', `/tokens/${tokenId}/holdings`, { key })).body.data, []);

      // The tag's page links it to the product and the token.
      const tag = await createdTag(server, key);
      await tab.open(`/tags/${tag.id}`);
      const links = page.getByRole('form', { name: 'Link to a product and a token' });
      await page.getByText('Not linked to a product or a token.').waitFor();
      await links.getByRole('option', { name: `Sneaker (${productId})` }).waitFor({ state: 'attached' });
      await links.getByLabel('Product').selectOption(productId);
      await links.getByLabel('Token').selectOption(tokenId);
      await links.getByRole('button', { name: 'Save links' }).click();
      await page.locator('dl.facts').getByText(`Sneaker (${productId})`).waitFor();
      const linked = (await call(server, 'GET', `/tags/${tag.id}/links`, { key })).body.data.attributes;
      assert.deepEqual([linked.product.id, linked.token.id], [productId, tokenId]);
      await assertAccessible(page, 'a linked tag');
      // Unlinking the product keeps the token.
      await page.getByRole('form', { name: 'Link to a product and a token' }).getByLabel('Product').selectOption('');
      await page.getByRole('form', { name: 'Link to a product and a token' }).getByRole('button', { name: 'Save links' }).click();
      await page.locator('dl.facts').getByText(`Sneaker (${productId})`).waitFor({ state: 'detached' });
      const after = await server.ctx.db.kysely.selectFrom('tag_links').select(['product_id', 'token_id']).where('tag_id', '=', tag.id).execute();
      assert.deepEqual(after, [{ product_id: null, token_id: tokenId }]);

      const audit = await server.ctx.db.kysely
        .selectFrom('audit_events')
        .select('operation')
        .where('team_id', '=', world.teamId)
        .where('operation', 'in', ['product.create', 'token.create', 'tag.link', 'holding.set', 'holding.unset'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        audit.map((a) => a.operation),
        ['product.create', 'token.create', 'holding.set', 'holding.unset', 'tag.link', 'tag.link'],
      );
      assert.deepEqual(tab.errors, []);
    });

    test('a read key sees the lists and no form', async () => {
      const reader = await consoleTab(browser, server);
      try {
        const { page } = reader;
        await reader.open('/');
        await signIn(page, (await createKey(server.ctx.db.kysely, world.teamId, 'sandbox', server.clock, { role: 'read' })).key);
        await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        await go(page, 'Catalog');
        await page.locator('.table-region[aria-label="Products"]').waitFor();
        await page.getByRole('region', { name: 'Holdings' }).waitFor();
        assert.equal(await page.getByRole('form').count(), 0);
        assert.equal(await page.getByRole('button', { name: /Remove|Create|Set holding/ }).count(), 0);
        assert.deepEqual(reader.errors, []);
      } finally {
        await reader.close();
      }
    });

    test('the catalog page passes axe and fits at 1280 and 375 px', async () => {
      for (const viewport of [
        { width: 1280, height: 900 },
        { width: 375, height: 812 },
      ]) {
        const sized = await consoleTab(browser, server, viewport);
        try {
          const { page } = sized;
          await sized.open('/');
          await signIn(page, world.sandbox.key);
          await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
          await go(page, 'Catalog');
          await page.locator('.table-region[aria-label="Tokens"]').waitFor();
          await page.getByRole('status').filter({ hasText: 'Loading' }).waitFor({ state: 'detached' });
          await assertFitsWidth(page, `catalog at ${viewport.width} px`);
          await assertAccessible(page, `catalog at ${viewport.width} px`);
          assert.deepEqual(sized.errors, []);
        } finally {
          await sized.close();
        }
      }
    });
  });
}
