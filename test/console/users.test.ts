// People in the console, in Chromium against the real server, on both engines: an invite's link sets a
// password and signs in; an admin invites from the Users page and a read user sees only what reading
// allows; sign-out and sign-in again; a passkey registered and used with a virtual authenticator (over
// CDP); a change without the CSRF token and an ended session refused; every page axe-clean at 1280
// and 375 px. The console is opened on localhost: WebAuthn takes no IP address as its relying party.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { cliActor } from '../../src/audit/record.js';
import { inviteUser } from '../../src/users/service.js';
import { launchBrowser } from '../kit/browser.js';
import { DATABASES, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { assertAccessible, assertFitsWidth, consoleTab, go, type ConsoleTab } from './console-page.js';

const PASSWORD = 'correct horse battery staple';
const ADMIN_NAV = ['Overview', 'Tags', 'Scans', 'Alerts', 'Cases', 'Webhooks', 'Catalog', 'Keys', 'Users', 'Audit'];
const READ_NAV = ['Overview', 'Tags', 'Scans', 'Alerts', 'Cases', 'Webhooks', 'Catalog'];

const navLinks = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();

async function setPassword(page: Page, password = PASSWORD): Promise<void> {
  await page.getByLabel('New password').fill(password);
  await page.getByLabel('Repeat the password').fill(password);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}

async function signInWithPassword(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

for (const kind of DATABASES) {
  describe(`people in the console (${kind})`, () => {
    let server: TestServer;
    let local: TestServer;
    let browser: Browser;
    let world: SeededTeam;
    const tabs: ConsoleTab[] = [];
    const tab = async (viewport?: { width: number; height: number }) => {
      const opened = await consoleTab(browser, local, viewport);
      tabs.push(opened);
      return opened;
    };
    const invite = async (email: string, role: 'admin' | 'write' | 'read') =>
      (await inviteUser(server.ctx, { teamId: world.teamId, actor: cliActor() }, { email, role }, local.origin)).link.url;

    before(async () => {
      server = await startServer(kind);
      local = { ...server, origin: server.origin.replace('127.0.0.1', 'localhost') };
      world = await server.seedTeam({ name: 'Acme' });
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await server?.close();
    });

    test('an invite link sets a password and signs in; the Users page invites a read user, who reads only', async () => {
      const admin = await tab();
      const { page } = admin;
      await page.goto(await invite(`ada-${kind}@example.com`, 'admin'));
      await page.getByText(`You are invited: ada-${kind}@example.com, admin of Acme.`).waitFor();
      // The token leaves the address bar at once.
      assert.equal(new URL(page.url()).hash, '');
      await assertAccessible(page, 'welcome');
      await setPassword(page);
      assert.deepEqual(await navLinks(page), ADMIN_NAV);
      assert.equal(await page.getByText(`ada-${kind}@example.com · Acme · admin`).count(), 1);
      assert.deepEqual(
        await page
          .context()
          .cookies()
          .then((c) => c.map((k) => [k.name, k.httpOnly, k.sameSite])),
        [['tapproof_session', true, 'Strict']],
      );

      await go(page, 'Users');
      await assertAccessible(page, 'Users');
      await page.getByLabel('Email').fill(`ben-${kind}@example.com`);
      await page.getByRole('radio', { name: /^read:/ }).check();
      await page.getByRole('button', { name: 'Invite' }).click();
      const link = await page.locator('.secret-value').innerText();
      assert.match(link, /\/console\/welcome#[A-Za-z0-9_-]{43}$/);
      // The list reloads after the invite: its new row first, then the count.
      await page
        .getByRole('region', { name: 'Users' })
        .locator('tbody tr', { hasText: `ben-${kind}` })
        .waitFor();
      const rows = await page.getByRole('region', { name: 'Users' }).locator('tbody tr').allInnerTexts();
      assert.equal(rows.length, 2);
      assert.match(
        rows.find((r) => r.includes(`ben-${kind}`))!,
        /link not used yet/,
      );

      const reader = await tab();
      await reader.page.goto(link);
      await setPassword(reader.page);
      assert.deepEqual(await navLinks(reader.page), READ_NAV);
      await go(reader.page, 'Tags');
      assert.equal(await reader.page.getByRole('button', { name: /import/i }).count(), 0);
      await reader.open('/users');
      await reader.page.getByText('Users are managed by admins.').waitFor();
      // The admin sees the reader's password now.
      await page.reload();
      await page
        .getByRole('region', { name: 'Users' })
        .locator('tbody tr', { hasText: `ben-${kind}` })
        .getByText('password')
        .waitFor();
    });

    test('sign out, then sign in with the password; a wrong one is refused without saying which part', async () => {
      const { page } = await tab();
      await page.goto(await invite(`cal-${kind}@example.com`, 'write'));
      await setPassword(page);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { level: 2, name: 'Sign in' }).waitFor();
      assert.deepEqual(await page.context().cookies(), []);
      await assertAccessible(page, 'sign-in');
      await signInWithPassword(page, `cal-${kind}@example.com`, 'not the password at all');
      await page.getByRole('alert').getByText('Wrong email or password, or the account cannot sign in').waitFor();
      await signInWithPassword(page, `cal-${kind}@example.com`);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      // A reload keeps the session: it is the cookie's, not the tab's.
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    });

    test('a passkey: registered from the link with a virtual authenticator, then the only thing needed to sign in', async () => {
      const { page, context } = await tab();
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
      });
      await page.goto(await invite(`dot-${kind}@example.com`, 'read'));
      await page.getByRole('button', { name: 'Register a passkey instead' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      assert.equal(credentials.length, 1);
      assert.equal(credentials[0]!.rpId, 'localhost');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      assert.equal(await page.getByText(`dot-${kind}@example.com · Acme · read`).count(), 1);
      const methods = await server.ctx.db.kysely
        .selectFrom('user_sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select('s.method')
        .where('u.email', '=', `dot-${kind}@example.com`)
        .orderBy('s.created_at')
        .execute();
      assert.deepEqual(
        methods.map((m) => m.method),
        ['passkey', 'passkey'],
      );
    });

    test('a change without the CSRF token is refused; an ended session sends the console back to sign-in', async () => {
      const { page } = await tab();
      await page.goto(await invite(`eli-${kind}@example.com`, 'admin'));
      await setPassword(page);
      const forged = await page.evaluate(async () => {
        const r = await fetch('/api/v1/tags', {
          method: 'POST',
          headers: { 'Content-Type': 'application/vnd.api+json' },
          body: JSON.stringify({ data: [{ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: 'https://forged.example/1' } }] }),
        });
        return [r.status, (await r.json()).errors[0].title];
      });
      assert.deepEqual(forged, [403, 'Missing or wrong X-CSRF-Token for this session']);
      // Two hours and a minute of nothing: past the idle limit.
      server.clock.advance(121 * 60_000);
      // The next request ends it: this click's, or the Overview's own poll if that comes first.
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Tags', exact: true })
        .click({ timeout: 2000 })
        .catch(() => undefined);
      await page.getByRole('alert').getByText('Your session has ended (signed out elsewhere, expired, or your access changed). Sign in again.').waitFor();
      assert.equal(await page.getByRole('heading', { level: 2, name: 'Sign in' }).count(), 1);
    });

    test('the sign-in, welcome and Users pages fit 375 px and pass axe there; no page raised an error', async () => {
      const phone = await tab({ width: 375, height: 812 });
      const { page } = phone;
      await phone.open('/');
      await page.getByRole('heading', { level: 2, name: 'Sign in' }).waitFor();
      await assertFitsWidth(page, 'sign-in');
      await assertAccessible(page, 'sign-in at 375 px');
      await page.goto(await invite(`fox-${kind}@example.com`, 'admin'));
      await page.getByLabel('New password').waitFor();
      await assertFitsWidth(page, 'welcome');
      await assertAccessible(page, 'welcome at 375 px');
      await setPassword(page);
      await go(page, 'Users');
      await page.getByRole('region', { name: 'Users' }).waitFor();
      await assertFitsWidth(page, 'Users');
      await assertAccessible(page, 'Users at 375 px');
      for (const t of tabs) assert.deepEqual(t.errors, []);
    });
  });
}
