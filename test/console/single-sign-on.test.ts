// Single sign-on in Chromium, on both engines: the console's button goes to a real OpenID provider
// (oidc-provider on loopback), its login and consent pages are filled as a person would, and the console
// comes back signed in as the account the provider vouched for, with the provider's role; a refusal
// comes back as a sentence on the sign-in page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { newId } from '../../src/ids.js';
import * as teamsRepo from '../../src/teams/repository.js';
import { launchBrowser } from '../kit/browser.js';
import { DATABASES, startServer, type TestServer } from '../kit/harness.js';
import { startTestProvider, type TestProvider } from '../kit/oidc-provider.js';
import { assertAccessible, consoleTab } from './console-page.js';

/** The provider's own pages (its development login and consent): any password, then Continue. */
async function atProvider(page: Page, login: string): Promise<void> {
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('anything');
  await page.locator('button[type="submit"]').click();
  await page.locator('button[type="submit"]', { hasText: 'Continue' }).click();
}

for (const kind of DATABASES) {
  describe(`single sign-on in the console (${kind})`, () => {
    let provider: TestProvider;
    let server: TestServer;
    let browser: Browser;
    const teamId = newId('team');

    before(async () => {
      provider = await startTestProvider();
      server = await startServer(kind, provider.env(teamId));
      await teamsRepo.insertTeam(server.ctx.db.kysely, { id: teamId, name: 'Acme SSO', parent_id: null, created_at: server.clock.nowMicros() });
      await provider.register(`${server.origin}/auth/oidc/callback`);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await server?.close();
      await provider?.close();
    });

    test('the button signs in through the provider as its account, with its role', async () => {
      provider.accounts.set('ana', { email: 'ana@example.com', role: 'write' });
      const tab = await consoleTab(browser, server);
      try {
        await tab.open('/');
        await tab.page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
        await atProvider(tab.page, 'ana');
        await tab.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        assert.equal(await tab.page.getByText('ana@example.com · Acme SSO · write').count(), 1);
        assert.deepEqual(await tab.page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts(), [
          'Overview',
          'Tags',
          'Scans',
          'Alerts',
          'Cases',
          'Webhooks',
          'Catalog',
        ]);
        const [user] = await server.ctx.db.kysely.selectFrom('users').selectAll().where('email', '=', 'ana@example.com').execute();
        assert.equal(user!.oidc_subject, `${provider.issuer} ana`);
        assert.deepEqual(tab.errors, []);
      } finally {
        await tab.close();
      }
    });

    test('an account without a role: back on the sign-in page, told why, nobody signed in', async () => {
      provider.accounts.set('bo', { email: 'bo@example.com' });
      const tab = await consoleTab(browser, server);
      try {
        await tab.open('/');
        await tab.page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
        await atProvider(tab.page, 'bo');
        await tab.page.getByRole('alert').getByText('Single sign-on was refused (role). Ask an admin, or sign in another way.').waitFor();
        await assertAccessible(tab.page, 'sign-in after a refused single sign-on');
        assert.equal((await server.ctx.db.kysely.selectFrom('users').select('id').where('email', '=', 'bo@example.com').execute()).length, 0);
      } finally {
        await tab.close();
      }
    });
  });
}
