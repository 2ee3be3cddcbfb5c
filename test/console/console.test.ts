// The operator console end to end in Chromium against the real server, on both engines: sign-in
// (refused keys too), tags from CSV, a tag written on a software chip and tapped, its scans under
// Scans and their filters, a webhook's delivery and redelivery, another team's key seeing none of it;
// every page checked with axe-core and at 375 px, and no uncaught page error anywhere.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { revoke } from '../../src/keys/service.js';
import { launchBrowser } from '../kit/browser.js';
import { DATABASES, call, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { flipHexDigit } from '../verifications/helpers.js';
import { newCard, writeTag } from '../writer/helpers.js';
import { FAST_WEBHOOKS, startDelivery, type Receiver } from '../webhooks/receiver.js';
import { assertAccessible, assertFitsWidth, consoleTab, go, message, signIn, tableRows, type ConsoleTab } from './console-page.js';

const REFUSED = 'That API key was refused: it is wrong or has been revoked.';

for (const kind of DATABASES) {
  describe(`operator console (${kind})`, () => {
    let server: TestServer;
    let receiver: Receiver;
    let stopDelivery: () => Promise<void>;
    let browser: Browser;
    let world: SeededTeam;
    let stranger: SeededTeam;
    let tab: ConsoleTab;
    const tags: Record<string, string> = {};
    let webhookId = '';

    before(async () => {
      server = await startServer(kind, FAST_WEBHOOKS);
      ({ receiver, stop: stopDelivery } = await startDelivery(server.ctx));
      world = await server.seedTeam({ name: 'Acme' });
      stranger = await server.seedTeam({ name: 'Stranger' });
      browser = await launchBrowser();
      tab = await consoleTab(browser, server);
    });
    after(async () => {
      await tab.close();
      await browser.close();
      await stopDelivery();
      await server.close();
    });

    test('a wrong key and a revoked key are refused with a visible message', async () => {
      const { page } = tab;
      await tab.open('/');
      await page.getByRole('heading', { level: 1, name: 'tapproof console' }).waitFor();
      await assertAccessible(page, 'sign-in');
      await signIn(page, `tp_sandbox_${'x'.repeat(32)}`);
      assert.equal(await message(page, 'alert', 'refused'), REFUSED);

      const revoked = await server.seedTeam({ name: 'Revoked' });
      assert.equal(await revoke(server.ctx, revoked.sandbox.id), true);
      await tab.open('/');
      await signIn(page, revoked.sandbox.key);
      assert.equal(await message(page, 'alert', 'refused'), REFUSED);
      assert.equal(await page.evaluate(() => sessionStorage.length), 0);
      await assertAccessible(page, 'sign-in with a refusal');
    });

    test('signs in, names the team, and keeps the key in sessionStorage only', async () => {
      const { page } = tab;
      await signIn(page, world.sandbox.key);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      const links = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();
      assert.deepEqual(links, ['Overview', 'Tags', 'Scans', 'Webhooks', 'Keys']);
      assert.equal(await page.getByText('Acme · sandbox').count(), 1);
      assert.deepEqual(await page.evaluate(() => [sessionStorage.getItem('tapproof.console.key'), localStorage.length]), [world.sandbox.key, 0]);
      // A reload keeps the session (the key is checked again).
      await tab.open('/keys');
      await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
      const keys = await tableRows(page, 'Keys');
      assert.deepEqual(
        keys.map((row) => [row[0], row[1], row[3]]),
        [[world.sandbox.id, 'sandbox', 'active']],
      );
      await assertAccessible(page, 'keys');
    });

    test('creates tags from pasted and uploaded CSV; a refused request creates nothing and names its lines', async () => {
      const { page } = tab;
      await go(page, 'Tags');
      assert.equal(await message(page, 'status', 'tags'), '0 tags');
      await page.getByLabel('Tags as CSV').fill('url,comment\nhttps://brand.example/p/1,first bottle\n"https://brand.example/p/2","second, with a comma"\n');
      await page.getByRole('button', { name: 'Create tags' }).click();
      assert.equal(await message(page, 'status', 'Created'), 'Created 2 of 2 tags.');

      await page.getByLabel('Tags as CSV').fill('url,session_duration\nhttps://brand.example/p/3,60\nhttps://brand.example/p/4,0\n');
      await page.getByRole('button', { name: 'Create tags' }).click();
      const refusal = await message(page, 'alert', 'refused');
      assert.equal(
        refusal,
        'Created 0 of 2 tags. The request with lines 2 to 3 was refused, and none of its tags was created:\n\nLine 3: session_duration: session_duration must be an integer from 1 to 3600',
      );

      await page.getByLabel('Or upload a CSV file').setInputFiles({
        name: 'tags.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('protocol,url,comment\nntag_424_dna,https://brand.example/p/5,uploaded\n'),
      });
      await page.getByRole('button', { name: 'Create tags' }).click();
      assert.equal(await message(page, 'status', 'Created'), 'Created 1 of 1 tags.');
      assert.equal(await message(page, 'status', 'tags,'), '3 tags, page 1 of 1');

      const listed = await call(server, 'GET', '/tags?order_by[]=comment', { key: world.sandbox.key });
      assert.deepEqual(
        listed.body.data.map((t: { attributes: { comment: string; url: string } }) => [t.attributes.comment, t.attributes.url]),
        [
          ['first bottle', 'https://brand.example/p/1'],
          ['second, with a comma', 'https://brand.example/p/2'],
          ['uploaded', 'https://brand.example/p/5'],
        ],
      );
      for (const t of listed.body.data) tags[t.attributes.comment] = t.id;

      await page.getByRole('searchbox', { name: 'Search' }).fill('SECOND');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      assert.equal(await message(page, 'status', 'tag,'), '1 tag, page 1 of 1');
      const found = await tableRows(page, 'Tags');
      assert.deepEqual(
        found.map((row) => row.slice(1, 5)),
        [[tags['second, with a comma'], 'created', 'second, with a comma', 'https://brand.example/p/2']],
      );
      await assertAccessible(page, 'tags');
    });

    test('creates a webhook and shows its secret once', async () => {
      const { page } = tab;
      await go(page, 'Webhooks');
      await page.getByText('No webhooks yet.').waitFor();
      await page.getByLabel('Receiver URL').fill(receiver.url('/hooks'));
      await page.getByRole('button', { name: 'Create webhook' }).click();
      const created = await message(page, 'status', 'Created webhook');
      webhookId = created.replace(/^Created webhook (whk_\w+)\.$/, '$1');
      assert.match(webhookId, /^whk_\w+$/);
      assert.match(await page.locator('.secret-value').innerText(), /^whsec_[A-Za-z0-9+/=]+$/);
      await assertAccessible(page, 'webhooks with a new secret');
      await page.getByRole('button', { name: 'I have kept it' }).click();
      assert.equal(await page.locator('.secret-value').count(), 0);
      const rows = await tableRows(page, 'Webhooks');
      assert.deepEqual(rows, [
        [webhookId, receiver.url('/hooks'), 'tag.created, tag.configured, tag.configuration_failed, tag.deleted', 'enabled', rows[0][4]],
      ]);
    });

    test('a tag written on a software chip and tapped shows under Scans with its outcome', async () => {
      const { page } = tab;
      const tagId = tags['first bottle'];
      const card = newCard();
      const written = await writeTag(server, world.sandbox.key, tagId, card);
      assert.equal(written.status, 'configured', JSON.stringify(written));
      const genuine = await call(server, 'POST', '/verifications', {
        key: world.sandbox.key,
        body: { data: { type: 'verifications', attributes: { url: card.tap(), client_ip: '2001:db8::1' } } },
      });
      assert.equal(genuine.body.data.attributes.reason, 'ok', genuine.text);
      const forged = await call(server, 'POST', '/verifications', {
        key: world.sandbox.key,
        body: { data: { type: 'verifications', attributes: { url: flipHexDigit(card.tap()) } } },
      });
      assert.equal(forged.body.data.attributes.reason, 'bad_cmac', forged.text);

      await go(page, 'Scans');
      const all = await tableRows(page, 'Scans');
      assert.deepEqual(
        all.map((row) => row.slice(1)),
        [
          ['not genuine: bad_cmac', tagId, '—', '—'],
          ['genuine', tagId, '1', '—'],
        ],
      );
      await page.getByRole('combobox', { name: 'Outcome' }).selectOption('false');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/genuine=false/);
      const filtered = await tableRows(page, 'Scans');
      assert.deepEqual(
        filtered.map((row) => row.slice(1, 3)),
        [['not genuine: bad_cmac', tagId]],
      );
      await assertAccessible(page, 'scans filtered');

      await page.getByRole('region', { name: 'Scans' }).getByRole('link').first().click();
      await page.getByRole('heading', { level: 1, name: `Scan ${forged.body.data.id}` }).waitFor();
      const facts = await page.locator('dl.facts').innerText();
      assert.match(facts, /Reason\s+bad_cmac \(Bad CMAC\)/);
      assert.match(facts, /Tamper\s+no tamper loop/);
      assert.match(facts, /Country\s+unknown\s+Client IP\s+not given/);
      await assertAccessible(page, 'scan');

      await tab.open(`/scans/${genuine.body.data.id}`);
      const genuineFacts = await page.locator('dl.facts').innerText();
      assert.match(genuineFacts, /Outcome\s+genuine/);
      assert.match(genuineFacts, /Read counter\s+1/);
      assert.match(genuineFacts, /Country\s+unknown\s+Client IP\s+2001:db8::1/, 'a documentation address has no country');
      assert.match(genuineFacts, new RegExp(`Session\\s+${genuine.body.data.attributes.session_id}`));

      await page.getByRole('link', { name: tagId }).click();
      await page.getByRole('heading', { level: 1, name: `Tag ${tagId}` }).waitFor();
      assert.match(await page.getByRole('region', { name: 'Attributes' }).locator('dl.facts').innerText(), /Status\s+configured/);
      const chip = page.getByRole('region', { name: 'Chip' }).locator('dl.facts');
      await chip.waitFor();
      const uid = card.uid.toString('hex').toUpperCase();
      assert.match(
        await chip.innerText(),
        new RegExp(
          `^UID\\s+${uid}\\s+Cryptography\\s+AES\\s+Mirroring\\s+encrypted\\s+Keys\\s+derived, version 1\\s+Write generation\\s+1\\s+Last counter\\s+1\\s+Bound`,
        ),
      );
      const writes = await tableRows(page, `Writes of ${tagId}`);
      assert.deepEqual(
        writes.map((row) => [row[1], row[2], row[6]]),
        [['configured', 'configured', '—']],
      );
      await page.getByText('Not linked (tapproof tags link sets a product and a token).').waitFor();
      assert.equal((await tableRows(page, `Scans of ${tagId}`)).length, 2);
      const sessions = await tableRows(page, `Sessions of ${tagId}`);
      assert.deepEqual(
        sessions.map((row) => [row[0], row[4]]),
        [[genuine.body.data.attributes.session_id, '1']],
      );
      await assertAccessible(page, 'tag');

      await go(page, 'Overview');
      const totals = await page.locator('.totals').innerText();
      assert.match(totals, /^2\s+scans\s+1\s+genuine\s+1\s+not genuine$/);
      assert.equal((await tableRows(page, 'Last scans')).length, 2);
      assert.deepEqual(await tableRows(page, 'Scans by country'), [['Unknown', '2']]);
      await assertAccessible(page, 'overview');
    });

    test("the webhook's deliveries show their attempts, and a delivery can be sent again", async () => {
      const { page } = tab;
      await receiver.until((received) => received.filter((r) => r.path === '/hooks').length === 1);
      await go(page, 'Webhooks');
      await page.getByRole('link', { name: webhookId }).click();
      await page.getByRole('heading', { level: 1, name: `Webhook ${webhookId}` }).waitFor();
      const [delivery] = await tableRows(page, 'Deliveries');
      assert.deepEqual(delivery.slice(1, 4), ['tag.configured', tags['first bottle'], 'delivered']);
      assert.match(delivery[4], /^#1 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC: 200 in \d+ ms$/);
      const eventId = delivery[0];

      await page.getByRole('button', { name: `Redeliver ${eventId}` }).click();
      assert.equal(await message(page, 'status', 'again'), `Sending ${eventId} again.`);
      await receiver.until((received) => received.filter((r) => r.path === '/hooks').length === 2);
      assert.equal(JSON.parse(receiver.on('/hooks')[1].body).type, 'tag.configured');
      // The worker records the attempt after the receiver answered: refresh until it is there.
      let attempts = '';
      for (let i = 0; i < 100 && !attempts.includes('#2'); i++) {
        await page.getByRole('button', { name: 'Refresh deliveries' }).click();
        attempts = (await tableRows(page, 'Deliveries'))[0][4];
      }
      assert.match(attempts, /^#1 .+: 200 in \d+ ms\n#2 .+: 200 in \d+ ms$/);

      await page.getByRole('button', { name: 'Disable' }).click();
      assert.equal(await message(page, 'status', 'Disabled'), 'Disabled the webhook.');
      await page.getByRole('button', { name: 'Enable' }).waitFor();
      assert.match(await page.locator('dl.facts').innerText(), /State\s+disabled/);
      await page.getByRole('button', { name: 'Enable' }).click();
      assert.equal(await message(page, 'status', 'Enabled'), 'Enabled the webhook.');
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      assert.match(await message(page, 'status', 'Rotated'), /^Rotated the secret/);
      assert.match(await page.locator('.secret-value').innerText(), /^whsec_/);
      await assertAccessible(page, 'webhook');
    });

    test('a key of another team sees none of it', async () => {
      const other = await consoleTab(browser, server);
      try {
        const { page } = other;
        await other.open('/');
        await signIn(page, stranger.sandbox.key);
        await page.getByText('Stranger · sandbox').waitFor();
        assert.match(await page.locator('.totals').innerText(), /^0\s+scans/);
        await go(page, 'Tags');
        assert.equal(await message(page, 'status', 'tags'), '0 tags');
        await go(page, 'Scans');
        await page.getByText('No scans.').waitFor();
        await go(page, 'Webhooks');
        await page.getByText('No webhooks yet.').waitFor();
        await go(page, 'Keys');
        assert.deepEqual(
          (await tableRows(page, 'Keys')).map((row) => row[0]),
          [stranger.sandbox.id],
        );
        await other.open(`/tags/${tags['first bottle']}`);
        assert.match(await message(page, 'alert', '404'), /^404 /);
        await other.open(`/webhooks/${webhookId}`);
        assert.match(await message(page, 'alert', '404'), /^404 /);
        assert.deepEqual(other.errors, []);
      } finally {
        await other.close();
      }
    });

    test('every page fits a 375 px wide screen and passes axe there', async () => {
      const phone = await consoleTab(browser, server, { width: 375, height: 812 });
      try {
        const { page } = phone;
        await phone.open('/');
        await assertFitsWidth(page, 'sign-in');
        await signIn(page, world.sandbox.key);
        await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        await page.locator('.totals').waitFor();
        for (const link of ['Overview', 'Tags', 'Scans', 'Webhooks', 'Keys'] as const) {
          await go(page, link);
          await page.getByRole('status').filter({ hasText: 'Loading' }).waitFor({ state: 'detached' });
          await assertFitsWidth(page, link);
          await assertAccessible(page, `${link} at 375 px`);
        }
        for (const path of [`/tags/${tags['first bottle']}`, `/webhooks/${webhookId}`]) {
          await phone.open(path);
          await page.locator('dl.facts').first().waitFor();
          await assertFitsWidth(page, path);
          await assertAccessible(page, `${path} at 375 px`);
        }
        assert.deepEqual(phone.errors, []);
      } finally {
        await phone.close();
      }
    });

    test('sign-out clears the key, and no page raised an error', async () => {
      const { page } = tab;
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API key').waitFor();
      assert.equal(await page.evaluate(() => sessionStorage.length), 0);
      await tab.open('/tags');
      await page.getByLabel('API key').waitFor();
      assert.deepEqual(tab.errors, []);
    });
  });
}
