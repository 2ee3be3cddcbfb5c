// The console's Audit page in Chromium against the real server, on both engines: an admin sees who changed
// what (the console's own changes included, as the key that made them), narrows it by operation and
// resource, and the page passes axe; a key of another role is not offered the page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createKey } from '../../src/keys/service.js';
import { DATABASES, call, type SeededTeam, type TestServer } from '../kit/harness.js';
import { createTags, updateDocument } from '../tags/helpers.js';
import { assertAccessible, consoleTab, go, signIn, tableRows, type ConsoleTab, signedInConsole, type SignedInConsole } from './console-page.js';

for (const kind of DATABASES) {
  describe(`console audit page (${kind})`, () => {
    let signedIn: SignedInConsole;
    let server: TestServer;
    let browser: Browser;
    let world: SeededTeam;
    let tab: ConsoleTab;
    let tags: { id: string }[];

    before(async () => {
      signedIn = await signedInConsole(kind, {
        seed: async (server, world) => {
          tags = await createTags(server, world.sandbox.key, 2);
          const patched = await call(server, 'PATCH', `/tags/${tags[1]!.id}`, {
            key: world.sandbox.key,
            body: updateDocument(tags[1]!.id, { comment: 'shelf 3' }),
          });
          assert.equal(patched.status, 200, patched.text);
        },
      });
      ({ server, browser, world, tab } = signedIn);
    });
    after(() => signedIn.close());

    test('newest first with who, what and the fields; filtered by operation and by resource, in the URL', async () => {
      const { page } = tab;
      await go(page, 'Audit');
      const rows = await tableRows(page, 'Audit events');
      assert.deepEqual(
        rows.map((r) => [r[1], r[2], r[3]]),
        [
          [`key ${world.sandbox.id}`, 'tag.update', tags[1]!.id],
          [`key ${world.sandbox.id}`, 'tag.create', tags[1]!.id],
          [`key ${world.sandbox.id}`, 'tag.create', tags[0]!.id],
        ],
      );
      assert.equal(rows[0]![4], 'comment: none → shelf 3');
      assert.equal(rows[0]![5], '127.0.0.1');
      await assertAccessible(page, 'the Audit page');

      const filters = page.getByRole('form', { name: 'Filter audit events' });
      await filters.getByLabel('Operation').selectOption('tag.create');
      await filters.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/operation=tag\.create/);
      await page.waitForFunction(() => document.querySelectorAll('.table-region[aria-label="Audit events"] tbody tr').length === 2);
      await filters.getByRole('button', { name: 'Clear' }).click();
      await filters.getByLabel('Resource').fill(tags[1]!.id);
      await filters.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(new RegExp(`resource=${tags[1]!.id}`));
      await page.waitForFunction(() => document.querySelectorAll('.table-region[aria-label="Audit events"] tbody tr').length === 2);
      assert.deepEqual(
        (await tableRows(page, 'Audit events')).map((r) => r[2]),
        ['tag.update', 'tag.create'],
      );
      // The resource links to its page.
      await page.getByRole('region', { name: 'Audit events' }).getByRole('link', { name: tags[1]!.id }).first().click();
      await page.waitForURL(new RegExp(`/tags/${tags[1]!.id}$`));
    });

    test('a change made in the console is in the log, as the key that made it', async () => {
      const { page } = tab;
      await go(page, 'Keys');
      await page.getByRole('radio', { name: /^read:/ }).check();
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.locator('.secret-value').waitFor();
      await page.getByRole('button', { name: 'I have kept it' }).click();
      await go(page, 'Audit');
      const [newest] = await tableRows(page, 'Audit events');
      assert.deepEqual([newest![1], newest![2]], [`key ${world.sandbox.id}`, 'key.create']);
      assert.match(newest![4], /role: read/);
      assert.ok(!newest!.join(' ').includes('tp_sandbox_'));
    });

    test('a write key is not offered the Audit page', async () => {
      const writer = await createKey(server.ctx.db.kysely, world.teamId, 'sandbox', server.clock, { role: 'write' });
      const other = await consoleTab(browser, server);
      try {
        await other.open('/');
        await signIn(other.page, writer.key);
        await other.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        const nav = other.page.getByRole('navigation', { name: 'Main' });
        assert.equal(await nav.getByRole('link', { name: 'Audit', exact: true }).count(), 0);
        assert.equal(await nav.getByRole('link', { name: 'Tags', exact: true }).count(), 1);
      } finally {
        await other.close();
      }
    });
  });
}
