// The Profile page in Chromium, on both engines: a person chooses what they are emailed, and the choice is
// kept; on a server without SMTP the page says notifications are off and why, and offers nothing to turn
// on. The users page says where an emailed invite went instead of showing a link. Accessible and within the
// width at 1280 and 375 px.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { DATABASES, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { launchBrowser } from '../kit/browser.js';
import { assertAccessible, assertFitsWidth, message, personTab, type ConsoleTab } from './console-page.js';

const SHOTS = '/tmp/console-shots';

for (const kind of DATABASES) {
  for (const smtp of [true, false]) {
    describe(`the Profile page (${kind}, ${smtp ? 'email on' : 'email off'})`, () => {
      let server: TestServer;
      let world: SeededTeam;
      let browser: Browser;
      const tabs: ConsoleTab[] = [];

      /** A tab in which `email`, invited as admin, has set a password and is on the Overview. */
      async function person(email: string, viewport?: { width: number; height: number }) {
        const opened = await personTab(browser, server, world.teamId, email, 'admin', viewport);
        tabs.push(opened);
        return opened;
      }

      before(async () => {
        // Nothing listens on port 9: no mail is sent here, the outbox keeps what is queued.
        server = await startServer(kind, smtp ? { TAPPROOF_SMTP_URL: 'smtp://127.0.0.1:9', TAPPROOF_PUBLIC_URL: 'https://console.example.com' } : {});
        world = await server.seedTeam({ name: 'Acme' });
        browser = await launchBrowser();
        mkdirSync(SHOTS, { recursive: true });
      });
      after(async () => {
        for (const t of tabs) assert.deepEqual(t.errors, []);
        await browser?.close();
        await server?.close();
      });

      test(smtp ? 'choices are saved and kept' : 'notifications are off, and the page says why', async () => {
        const email = `profile-${kind}-${smtp}@example.com`;
        const { page } = await person(email);
        await page.getByRole('link', { name: email }).click();
        await page.getByRole('heading', { level: 1, name: 'Profile' }).waitFor();
        const opening = page.getByRole('checkbox', { name: 'when a case opens' });
        const digest = page.getByRole('checkbox', { name: /^a daily digest of cases/ });
        const sandbox = page.getByRole('checkbox', { name: "about the sandbox's cases too, not only production's" });
        await opening.waitFor();
        if (!smtp) {
          assert.equal(
            await message(page, 'status', 'Notifications are off'),
            'Notifications are off: email is off on this server: its operator has not set TAPPROOF_SMTP_URL (docs/email.md).',
          );
          assert.deepEqual([await opening.isDisabled(), await digest.isDisabled(), await sandbox.isDisabled()], [true, true, false]);
        } else {
          assert.equal(await digest.getAttribute('aria-label'), null);
          assert.equal((await digest.locator('xpath=..').innerText()).trim(), 'a daily digest of cases (at 07:00 UTC)');
          await opening.check();
          await sandbox.check();
          await page.getByRole('button', { name: 'Save' }).click();
          assert.equal(await message(page, 'status', 'Saved.'), 'Saved.');
          const row = await server.ctx.db.kysely
            .selectFrom('notification_settings as n')
            .innerJoin('users as u', 'u.id', 'n.user_id')
            .select(['n.case_opened', 'n.daily_digest', 'n.sandbox'])
            .where('u.email', '=', email)
            .executeTakeFirstOrThrow();
          assert.deepEqual(row, { case_opened: 1, daily_digest: 0, sandbox: 1 });
          await page.reload();
          await opening.waitFor();
          assert.deepEqual([await opening.isChecked(), await digest.isChecked(), await sandbox.isChecked()], [true, false, true]);
        }
        await assertAccessible(page, 'Profile');
        await page.screenshot({ path: `${SHOTS}/${kind}-profile-${smtp ? 'on' : 'off'}-1280.png`, fullPage: true });
        const narrow = await person(`narrow-${kind}-${smtp}@example.com`, { width: 375, height: 800 });
        await narrow.open('/profile');
        await narrow.page.getByRole('heading', { level: 1, name: 'Profile' }).waitFor();
        await narrow.page.getByRole('checkbox', { name: 'when a case opens' }).waitFor();
        await assertFitsWidth(narrow.page, 'Profile at 375 px');
        await narrow.page.screenshot({ path: `${SHOTS}/${kind}-profile-${smtp ? 'on' : 'off'}-375.png`, fullPage: true });
      });

      if (smtp)
        test('an invite made on the Users page is emailed, and the page says to whom', async () => {
          const { page } = await person(`inviter-${kind}@example.com`);
          await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users', exact: true }).click();
          await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
          await page.getByLabel('Email', { exact: true }).fill(`mailed-${kind}@example.com`);
          await page.getByRole('button', { name: 'Invite', exact: true }).click();
          assert.equal(await message(page, 'status', 'Invited'), `Invited mailed-${kind}@example.com: their one-time link was emailed to them.`);
          const queued = await server.ctx.db.kysely.selectFrom('mail_outbox').select(['kind', 'status']).where('kind', '=', 'invite').execute();
          assert.deepEqual(queued, [{ kind: 'invite', status: 'pending' }]);
        });
    });
  }
}
