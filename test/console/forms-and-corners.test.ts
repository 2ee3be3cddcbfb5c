// What a new operator met on the console, in Chromium against the real server on both engines: every
// radio and checkbox of every form beside its label on one line (at 1280 and 375 px, screenshots kept
// for a person to look at); a read user sent to Audit and Keys by address told who may use them; times
// inside audit changes read as ISO times; a rolled key revocable during its overlap; disabling a person
// confirmed first; a one-time value copied with one click; a webhook's events changed, a test event sent
// and the webhook deleted; Alerts naming each tag by its comment and linking a country jump to the scan it jumped from.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../kit/browser.js';
import { DATABASES, call, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { emulated, tapUrl, verify } from '../verifications/helpers.js';
import { assertAccessible, assertFitsWidth, go, message, personTab, tableRows, type ConsoleTab } from './console-page.js';

const SHOTS = process.env.TAPPROOF_SCREENSHOTS ?? '/tmp/console-shots';
const US = '8.8.8.8';
const DE = '5.9.0.1';

interface Misplaced {
  control: string;
  why: string;
}

/**
 * Every radio and checkbox of the page's forms that has a visible label, measured: the control is a box of
 * its own size, its label's first line of text starts right of it (within 16 px) on the same row. A control
 * named only by aria-label (a table's row selection) has no visible label to sit beside.
 */
async function misplacedChecks(page: Page): Promise<{ checked: number; misplaced: Misplaced[] }> {
  // A text script: functions passed from here would carry tsx's `__name` helper.
  return page.evaluate(`(() => {
    const misplaced = [];
    let checked = 0;
    for (const input of document.querySelectorAll('form input[type=radio], form input[type=checkbox]')) {
      if (input.getClientRects().length === 0) continue;
      const label = input.closest('label') ?? (input.id ? document.querySelector('label[for="' + input.id + '"]') : null);
      if (!label) continue;
      checked++;
      const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT, { acceptNode: (n) => (n.textContent.trim() ? 1 : 3) });
      const first = walker.nextNode();
      const name = label.innerText.trim().slice(0, 40);
      if (!first) { misplaced.push({ control: name, why: 'no label text' }); continue; }
      const range = document.createRange();
      range.selectNodeContents(first);
      const text = range.getClientRects()[0];
      const box = input.getBoundingClientRect();
      const gap = text.left - box.right;
      const row = Math.abs((text.top + text.bottom) / 2 - (box.top + box.bottom) / 2);
      if (box.width > 24) misplaced.push({ control: name, why: 'the control is ' + Math.round(box.width) + ' px wide' });
      else if (gap < 0 || gap > 16) misplaced.push({ control: name, why: 'its text starts ' + Math.round(gap) + ' px from it' });
      else if (row > 6) misplaced.push({ control: name, why: 'its text is ' + Math.round(row) + ' px off its row' });
    }
    return { checked, misplaced };
  })()`);
}

for (const kind of DATABASES) {
  describe(`the console's forms and rough corners (${kind})`, () => {
    let server: TestServer;
    let browser: Browser;
    let world: SeededTeam;
    const tabs: ConsoleTab[] = [];
    /** A new tab in which `email`, invited as `role`, has set a password and is on the Overview. */
    const person = async (email: string, role: 'admin' | 'write' | 'read', viewport?: { width: number; height: number }) => {
      const opened = await personTab(browser, server, world.teamId, email, role, viewport);
      tabs.push(opened);
      return opened;
    };
    const key = () => world.sandbox.key;

    before(async () => {
      server = await startServer(kind);
      world = await server.seedTeam({ name: 'Acme' });
      browser = await launchBrowser();
      mkdirSync(SHOTS, { recursive: true });
    });
    after(async () => {
      for (const t of tabs) assert.deepEqual(t.errors, []);
      await browser?.close();
      await server?.close();
    });

    test('every form: each radio and checkbox sits beside its label on one line, at 1280 and at 375 px', async () => {
      const tag = (await emulated(server, world.teamId, 'ntag_424_dna')).id;
      const hook = await call(server, 'POST', '/webhooks', {
        key: key(),
        body: { data: { type: 'webhooks', attributes: { url: 'https://example.com/hook' } } },
      });
      assert.equal(hook.status, 201, hook.text);
      const forms: [string, string, string][] = [
        ['/users', 'Users', 'Invite someone'],
        ['/keys', 'Keys', 'Create a key'],
        ['/webhooks', 'Webhooks', 'Create a webhook'],
        [`/webhooks/${hook.body.data.id}`, `Webhook ${hook.body.data.id}`, 'Change its events'],
        ['/catalog', 'Catalog', 'Tokens'],
        [`/tags/${tag}`, `Tag ${tag}`, 'Product and token'],
        ['/tags', 'Tags', 'Create tags'],
        ['/alerts', 'Alerts', 'Alerts'],
      ];
      for (const width of [1280, 375]) {
        const { page } = await person(`forms-${width}-${kind}@example.com`, 'admin', { width, height: 900 });
        let controls = 0;
        for (const [path, heading, part] of forms) {
          await page.goto(`${server.origin}/console${path}`);
          await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
          await page.getByRole('heading', { name: part, exact: true }).first().waitFor();
          const name = `${kind}-${width}-${path.replace(/\W+/g, '-').replace(/^-|-$/g, '') || 'root'}`;
          await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
          const { checked, misplaced } = await misplacedChecks(page);
          controls += checked;
          assert.deepEqual(misplaced, [], `${path} at ${width} px`);
          await assertFitsWidth(page, `${path} at ${width} px`);
          await assertAccessible(page, `${path} at ${width} px`);
        }
        // Invite's three roles, Create key's four, and the webhook events of both forms.
        assert.ok(controls >= 3 + 4 + 6 + 6, `${controls} labelled controls at ${width} px`);
      }
    });

    test('a read user opening Audit or Keys by address is told who may, with no form and no refusal', async () => {
      const { page } = await person(`reader-${kind}@example.com`, 'read');
      await page.goto(`${server.origin}/console/audit`);
      await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
      await page.getByText('The audit log is shown to admins only: ask an admin of your team.').waitFor();
      assert.equal(await page.getByRole('form', { name: 'Filter audit events' }).count(), 0);
      assert.equal(await page.locator('form').count(), 0);
      assert.equal(await page.getByRole('alert').filter({ hasText: /\S/ }).count(), 0);
      await assertAccessible(page, 'Audit for a read user');

      await page.goto(`${server.origin}/console/keys`);
      await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
      const said = await page.locator('main p').first().innerText();
      assert.equal(said, 'Keys are managed by admins: ask an admin of your team to create, roll or revoke a key, or to make you an admin.');
      assert.doesNotMatch(said, /admin key/);
    });

    test('Keys: a rolled key can be revoked during its overlap; Audit shows the times of its changes as ISO times', async () => {
      const made = await call(server, 'POST', '/keys', { key: key(), body: { data: { type: 'keys', attributes: { role: 'read', name: 'till' } } } });
      const old = made.body.data.id as string;
      const rolled = await call(server, 'POST', `/keys/${old}/roll`, { key: key(), body: { data: { type: 'keys', attributes: { expires_in: 3600 } } } });
      assert.equal(rolled.status, 201, rolled.text);
      const { page } = await person(`keys-${kind}@example.com`, 'admin');
      await go(page, 'Keys');
      const revoke = page.getByRole('button', { name: `Revoke ${old}`, exact: true });
      await revoke.waitFor();
      assert.equal(await page.getByRole('button', { name: `Roll ${old}`, exact: true }).count(), 0);
      page.once('dialog', (dialog) => void dialog.accept());
      await revoke.click();
      assert.equal(await message(page, 'status', 'Revoked'), `Revoked ${old}.`);
      const after = (await call(server, 'GET', `/keys/${old}`, { key: key() })).body.data.attributes;
      assert.ok(after.revoked_at);
      assert.equal((await call(server, 'GET', '/tags', { key: made.body.data.attributes.key })).status, 401);

      await page.goto(`${server.origin}/console/audit?resource=${old}`);
      await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
      const rows = await tableRows(page, 'Audit events');
      const changes = rows.map((r) => r[4]).join('\n');
      // The API's own rendering of the same instant, to the millisecond.
      assert.match(changes, new RegExp(`revoked_at: ${new Date(Date.parse(after.revoked_at)).toISOString().slice(0, 23)}`));
      assert.match(changes, /ends_at: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/);
      assert.doesNotMatch(changes, /_at: \d{10,}/);
      await assertAccessible(page, 'Audit with times');
    });

    test('Users: Disable asks to confirm first; the one-time link is copied with one click', async () => {
      const { page, context } = await person(`admin-${kind}@example.com`, 'admin');
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
      await go(page, 'Users');
      const email = `bo-${kind}@example.com`;
      const form = page.getByRole('region', { name: 'Invite someone' });
      await form.getByLabel('Email').fill(email);
      await form.getByRole('radio', { name: /^write:/ }).check();
      await form.getByRole('button', { name: 'Invite' }).click();
      const link = (await page.locator('.secret-value').innerText()).trim();
      await page.getByRole('button', { name: 'Copy the link', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
      await page.screenshot({ path: `${SHOTS}/${kind}-users-copied.png`, fullPage: true });

      const state = async () => (await tableRows(page, 'Users')).find((r) => r[0] === email)?.[4];
      await page.getByRole('button', { name: `Disable ${email}`, exact: true }).click();
      const confirmDisable = page.getByRole('button', { name: `Confirm disable ${email}`, exact: true });
      await confirmDisable.waitFor();
      await page.screenshot({ path: `${SHOTS}/${kind}-users-confirm-disable.png`, fullPage: true });
      assert.equal(await state(), 'enabled');
      // Cancelled: nothing changes, and Disable is offered again.
      await page.getByRole('button', { name: `Keep ${email} enabled`, exact: true }).click();
      await page.getByRole('button', { name: `Disable ${email}`, exact: true }).click();
      await confirmDisable.click();
      assert.equal(await message(page, 'status', 'Disabled'), `Disabled ${email}.`);
      assert.equal(await state(), 'disabled');
      await assertAccessible(page, 'Users after disabling');
    });

    test('Keys: a new key is copied with one click', async () => {
      const { page, context } = await person(`copier-${kind}@example.com`, 'admin');
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
      await go(page, 'Keys');
      await page.getByRole('radio', { name: /^verify:/ }).check();
      await page.getByRole('button', { name: 'Create key' }).click();
      const text = (await page.locator('.secret-value').innerText()).trim();
      assert.match(text, /^tp_sandbox_/);
      await page.getByRole('button', { name: 'Copy the key', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), text);
    });

    test("a webhook's events are changed, a test event sent, and the webhook deleted, from its page", async () => {
      const made = await call(server, 'POST', '/webhooks', {
        key: key(),
        body: { data: { type: 'webhooks', attributes: { url: 'https://example.com/edit' } } },
      });
      const id = made.body.data.id as string;
      const events = async () => (await call(server, 'GET', `/webhooks/${id}`, { key: key() })).body.data.attributes.events;
      const { page } = await person(`hooks-${kind}@example.com`, 'write');
      await page.goto(`${server.origin}/console/webhooks/${id}`);
      const form = page.getByRole('region', { name: 'Change its events' });
      await form.getByRole('checkbox', { name: 'tag.created', exact: true }).waitFor();
      assert.equal(await form.getByRole('checkbox', { name: 'tag.created', exact: true }).isChecked(), true);
      await form.getByRole('checkbox', { name: 'tag.deleted', exact: true }).uncheck();
      await form.getByRole('checkbox', { name: 'verification.flagged', exact: true }).check();
      await form.getByRole('button', { name: 'Save events' }).click();
      await message(page, 'status', 'now receives');
      assert.deepEqual(await events(), ['tag.created', 'tag.configured', 'tag.configuration_failed', 'verification.flagged']);
      assert.match(await page.locator('dl.facts').innerText(), /Events\s+tag\.created, tag\.configured, tag\.configuration_failed, verification\.flagged/);
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await message(page, 'status', 'Sent test event');
      const deliveries = await tableRows(page, 'Deliveries');
      assert.equal(deliveries.length, 1);
      assert.deepEqual(deliveries[0]!.slice(1, 3), ['webhook.test', 'none']);
      assert.match(deliveries[0]![0]!, /^evt_[0-9A-Za-z]{22}$/);
      assert.match(deliveries[0]![3]!, /^pending/);
      await page.screenshot({ path: `${SHOTS}/${kind}-webhook-events.png`, fullPage: true });
      await assertAccessible(page, 'webhook with its events form');

      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Delete webhook' }).click();
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      assert.equal((await call(server, 'GET', `/webhooks/${id}`, { key: key() })).status, 404);
    });

    test('Alerts: each tag by its comment with its id beside it; a country jump links the scan it jumped from', async () => {
      const { id } = await emulated(server, world.teamId, 'ntag_424_dna');
      const named = await call(server, 'PATCH', `/tags/${id}`, { key: key(), body: { data: { type: 'tags', id, attributes: { comment: 'Blue jacket, M' } } } });
      assert.equal(named.status, 200, named.text);
      const scan = async (clientIp: string) => {
        const answer = await verify(server, key(), await tapUrl(server, id), { client_ip: clientIp });
        assert.equal(answer.status, 201, answer.text);
        return answer.body.data;
      };
      const home = await scan(US);
      const abroad = await scan(DE);
      assert.deepEqual(abroad.attributes.signals, ['country_jump']);

      const { page } = await person(`alerts-${kind}@example.com`, 'read', { width: 375, height: 900 });
      await page.goto(`${server.origin}/console/alerts?tag_id=${id}`);
      const item = page.locator('ol.alerts[aria-label="Alerts"] > li').first();
      await item.getByRole('link', { name: 'Blue jacket, M', exact: true }).waitFor();
      assert.equal(await item.getByRole('link', { name: 'Blue jacket, M', exact: true }).getAttribute('href'), `/console/tags/${id}`);
      assert.match(await item.locator('.alert-scan').innerText(), new RegExp(`Tag Blue jacket, M ${id}`));
      const jump = item.getByRole('link', { name: 'the scan in US', exact: true });
      assert.equal(await jump.getAttribute('href'), `/console/scans/${home.id}`);
      await page.screenshot({ path: `${SHOTS}/${kind}-alerts-375.png`, fullPage: true });
      await assertAccessible(page, 'Alerts with comments and a jump');
      await assertFitsWidth(page, 'Alerts at 375 px');
      await jump.click();
      await page.getByRole('heading', { level: 1, name: new RegExp(home.id) }).waitFor();
    });
  });
}
