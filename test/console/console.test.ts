// The operator console end to end in Chromium against the real server, on both engines: sign-in
// (refused keys too), tags from CSV, a tag written on a software chip and tapped, its scans under
// Scans and their filters, a webhook's delivery and redelivery, flagged scans under Alerts (and their
// badges, a tag's signal history, the thresholds), another team's key seeing none of it; every page
// checked with axe-core and at 375 px, and no uncaught page error anywhere.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { revoke } from '../../src/keys/service.js';
import { launchBrowser } from '../kit/browser.js';
import { DATABASES, call, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { emulated, flipHexDigit, tamper, tapUrl, verify } from '../verifications/helpers.js';
import { newCard, writeTag } from '../writer/helpers.js';
import { FAST_WEBHOOKS, startDelivery, type Receiver } from '../webhooks/receiver.js';
import { SIGNAL_ACTIONS, SIGNAL_LABELS, SIGNAL_MEANINGS, SIGNALS, type Signal } from '../../packages/console/src/signals.js';
import { cliActor } from '../../src/audit/record.js';
import {
  alertRows,
  assertAccessible,
  assertFitsWidth,
  consoleTab,
  go,
  message,
  rowsOnceSettled,
  scanRows,
  signIn,
  tableRows,
  type ConsoleTab,
  type ScanRow,
} from './console-page.js';

const REFUSED = 'That API key was refused: it is wrong, revoked or expired.';
const US = '8.8.8.8';
const DE = '5.9.0.1';
const DEFAULT_THRESHOLDS = { counter_gap: 5, country_jump_window: 21_600, replay_burst: 3 };

interface Scan {
  id: string;
  attributes: { genuine: boolean; reason: string; signals: Signal[]; tag_id: string; read_counter: number | null; country: string | null; scanned_at: string };
}

/** A Signals cell on Alerts and in a signal history: each signal's badge, what it means and what to do, a line each. */
const notes = (signals: Signal[]) => signals.map((s) => `${SIGNAL_LABELS[s]} ${SIGNAL_MEANINGS[s]} What to do: ${SIGNAL_ACTIONS[s]}`).join('\n');
const badgeNames = (signals: Signal[]) => signals.map((s) => `Signal: ${SIGNAL_LABELS[s]}`);
/** The console's time of a scan: to the second, UTC. */
const shown = (v: Scan) => `${v.attributes.scanned_at.slice(0, 19).replace('T', ' ')} UTC`;

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
    let sealTagId = '';

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
      assert.equal(await revoke(server.ctx, revoked.sandbox.id, cliActor()), true);
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
      assert.deepEqual(links, ['Overview', 'Tags', 'Scans', 'Alerts', 'Cases', 'Webhooks', 'Catalog', 'Keys', 'Users', 'Audit']);
      assert.equal(await page.getByText('Acme · sandbox').count(), 1);
      assert.deepEqual(await page.evaluate(() => [sessionStorage.getItem('tapproof.console.key'), localStorage.length]), [world.sandbox.key, 0]);
      // A reload keeps the session (the key is checked again).
      await tab.open('/keys');
      await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
      const keys = await tableRows(page, 'Keys');
      assert.deepEqual(
        keys.map((row) => [row[0], row[2], row[6]]),
        [[world.sandbox.id, 'admin', 'active']],
      );
      await assertAccessible(page, 'keys');
    });

    test('an admin creates, rolls and revokes keys; a read key sees no change it cannot make; a verify key is refused', async () => {
      const { page } = tab;
      await go(page, 'Keys');
      await page.getByRole('radio', { name: /^read:/ }).check();
      await page.getByLabel('Name (optional)').fill('wall screen');
      await page.getByRole('button', { name: 'Create key' }).click();
      const shownOnce = page.locator('.secret-value');
      await shownOnce.waitFor();
      const readKey = (await shownOnce.innerText()).trim();
      assert.match(readKey, /^tp_sandbox_[0-9A-Za-z]{32}$/);
      const self = await call(server, 'GET', '/keys/current', { key: readKey });
      assert.deepEqual([self.body.data.attributes.role, self.body.data.attributes.name], ['read', 'wall screen']);
      const readId = self.body.data.id;
      await page.getByRole('button', { name: 'I have kept it' }).click();
      assert.equal(await shownOnce.count(), 0);
      await assertAccessible(page, 'keys with a new key');

      // Roll it with an hour of overlap: the new key is shown once, the old one keeps working meanwhile.
      await page.getByLabel(`After rolling ${readId}, the old key`).selectOption({ label: 'works 1 more hour' });
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: `Roll ${readId}` }).click();
      const rolled = await message(page, 'status', 'Rolled');
      const newId = /^Rolled key_\w{22} to (key_\w{22})\.$/.exec(rolled)![1]!;
      const rolledKey = (await shownOnce.innerText()).trim();
      assert.equal((await call(server, 'GET', '/keys/current', { key: rolledKey })).body.data.id, newId);
      assert.equal((await call(server, 'GET', '/tags', { key: readKey })).status, 200);
      const rows = async () => Object.fromEntries((await tableRows(page, 'Keys')).map((row) => [row[0], [row[1], row[2], row[6]]]));
      await page.getByRole('button', { name: `Roll ${newId}` }).waitFor();
      assert.deepEqual((await rows())[readId], ['wall screen', 'read', `rolled to ${newId}, ends soon`]);
      assert.deepEqual((await rows())[newId], ['wall screen', 'read', 'active']);

      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: `Revoke ${newId}` }).click();
      assert.equal(await message(page, 'status', 'Revoked'), `Revoked ${newId}.`);
      assert.equal((await call(server, 'GET', '/tags', { key: rolledKey })).status, 401);

      // A read key: the pages show everything and offer no change.
      const reader = await call(server, 'POST', '/keys', { key: world.sandbox.key, body: { data: { type: 'keys', attributes: { role: 'read' } } } });
      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(page, reader.body.data.attributes.key);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      assert.deepEqual(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts(), [
        'Overview',
        'Tags',
        'Scans',
        'Alerts',
        'Cases',
        'Webhooks',
        'Catalog',
      ]);
      assert.equal(await page.getByText('Acme · sandbox · read key').count(), 1);
      await go(page, 'Tags');
      await page.getByRole('status').filter({ hasText: 'Loading' }).waitFor({ state: 'detached' });
      for (const name of ['Create tags', /^Delete selected/]) assert.equal(await page.getByRole('button', { name }).count(), 0, String(name));
      assert.equal(await page.getByLabel('Tags as CSV').count(), 0);
      await go(page, 'Webhooks');
      assert.equal(await page.getByRole('heading', { name: 'Create a webhook' }).count(), 0);
      await go(page, 'Alerts');
      await page.getByLabel('Counter gap', { exact: true }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Save thresholds' }).count(), 0);
      assert.equal(await page.getByLabel('Counter gap', { exact: true }).getAttribute('readonly'), '');
      await assertAccessible(page, 'alerts for a read key');
      await tab.open('/keys');
      await page.getByText('Keys are managed with an admin key').waitFor();
      await assertAccessible(page, 'keys for a read key');

      // A verify key cannot read the console's pages at all.
      const verifier = await call(server, 'POST', '/keys', { key: world.sandbox.key, body: { data: { type: 'keys', attributes: { role: 'verify' } } } });
      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(page, verifier.body.data.attributes.key);
      assert.equal(await message(page, 'alert', 'verify key'), 'That is a verify key: it can only verify scans. Sign in with an admin, write or read key.');
      await signIn(page, world.sandbox.key);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      assert.deepEqual(tab.errors, []);
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
          ['not genuine: bad_cmac', tagId, 'first bottle', '—', '—', '—'],
          ['genuine', tagId, 'first bottle', '1', '—', '—'],
        ],
      );
      await page.getByRole('combobox', { name: 'Outcome' }).selectOption('false');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/genuine=false/);
      // The filtered page replaces the table once its answer is in: read it once it has settled.
      const want = [['not genuine: bad_cmac', tagId]];
      const filtered = await rowsOnceSettled(async () => (await tableRows(page, 'Scans')).map((row) => row.slice(1, 3)), want);
      assert.deepEqual(filtered, want);
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
      await page.getByText('Not linked to a product or a token.').waitFor();
      assert.equal((await tableRows(page, `Scans of ${tagId}`)).length, 2);
      const sessions = await tableRows(page, `Sessions of ${tagId}`);
      assert.deepEqual(
        sessions.map((row) => [row[0], row[4]]),
        [[genuine.body.data.attributes.session_id, '1']],
      );
      await assertAccessible(page, 'tag');

      await go(page, 'Overview');
      await page
        .locator('.totals')
        .getByRole('link', { name: /open cases?$/ })
        .waitFor();
      const totals = await page.locator('.totals').innerText();
      assert.match(totals, /^2\s+scans\s+1\s+genuine\s+1\s+not genuine\s+0\s+flagged scans\s+0\s+open cases$/);
      assert.equal((await tableRows(page, 'Last scans')).length, 2);
      assert.deepEqual(await tableRows(page, 'Scans by country'), [['Unknown', '2', '0']]);
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

      // The resend is refused once with a reason in the body, then accepted on the retry.
      receiver.respond = (path, nth) => (path === '/hooks' && nth === 2 ? 500 : 200);
      receiver.answer = (path, nth) => (path === '/hooks' && nth === 2 ? 'maintenance: try later' : undefined);
      await page.getByRole('button', { name: `Redeliver ${eventId}` }).click();
      assert.equal(await message(page, 'status', 'again'), `Sending ${eventId} again.`);
      await receiver.until((received) => received.filter((r) => r.path === '/hooks').length === 3);
      assert.equal(JSON.parse(receiver.on('/hooks')[1].body).type, 'tag.configured');
      // The worker records the attempts after the receiver answered: refresh until they are there.
      let attempts = '';
      for (let i = 0; i < 100 && !attempts.includes('#3'); i++) {
        await page.getByRole('button', { name: 'Refresh deliveries' }).click();
        attempts = (await tableRows(page, 'Deliveries'))[0][4];
      }
      // The status is said once (not "500 … (HTTP 500)"); the answer's first bytes are one click away.
      assert.match(attempts, /^#1 .+: 200 in \d+ ms\n#2 .+: 500 in \d+ ms\nResponse body \(first bytes\)\n#3 .+: 200 in \d+ ms$/);
      await page.getByText('Response body (first bytes)').click();
      assert.equal(await page.locator('.response-body pre').innerText(), 'maintenance: try later');
      receiver.answer = () => undefined;
      // A pending delivery says when its next attempt is due (made pending here: the receiver accepts at once).
      const due = server.ctx.clock.nowMicros() + 3_600_000_000;
      const pending = () =>
        server.ctx.db.kysely.updateTable('deliveries').set({ status: 'pending', next_attempt_at: due }).where('event_id', '=', eventId).execute();
      await pending();
      await page.getByRole('button', { name: 'Refresh deliveries' }).click();
      const dueText = new Date(due / 1000).toISOString().slice(0, 16).replace('T', ' ');
      await page.getByText(`(next attempt ${dueText}`, { exact: false }).waitFor();
      assert.match((await tableRows(page, 'Deliveries'))[0][3], /^pending \(next attempt \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)$/);
      await server.ctx.db.kysely.updateTable('deliveries').set({ status: 'delivered' }).where('event_id', '=', eventId).execute();

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

    test('flagged scans: Alerts explains each signal and filters by it, badges in every list, the tag’s history, the Overview’s count; an opened seal never reads plain genuine', async () => {
      const { page } = tab;
      const key = world.sandbox.key;
      const scan = async (url: string, clientIp?: string): Promise<Scan> => {
        const response = await verify(server, key, url, clientIp === undefined ? {} : { client_ip: clientIp });
        assert.equal(response.status, 201, response.text);
        return response.body.data;
      };
      const tapAndScan = async (tagId: string, clientIp?: string) => scan(await tapUrl(server, tagId), clientIp);
      /** Reads of the chip whose URLs are never sent (a harvest). */
      const harvest = async (tagId: string, count: number) => {
        for (let i = 0; i < count; i++) await tapUrl(server, tagId);
      };

      // Harvested: six reads never verified, then a genuine scan (counter_gap); a harvested URL older than
      // the last genuine scan replayed three times (the third a replay_burst).
      const gap = await emulated(server, world.teamId, 'ntag_424_dna');
      const g1 = await tapAndScan(gap.id);
      await harvest(gap.id, 6);
      const g2 = await tapAndScan(gap.id);
      const stale = await tapUrl(server, gap.id);
      const g3 = await tapAndScan(gap.id);
      const r1 = await scan(stale);
      const r2 = await scan(stale);
      const r3 = await scan(stale);
      // A sealed item opened, with a harvest in between (counter_gap and tamper_opened), and scanned again (tamper_open).
      const seal = await emulated(server, world.teamId, 'ntag_424_dna_tag_tamper');
      sealTagId = seal.id;
      const s1 = await tapAndScan(seal.id);
      await tamper(server, seal.id, 'open');
      await harvest(seal.id, 6);
      const s2 = await tapAndScan(seal.id);
      const s3 = await tapAndScan(seal.id);
      // The US, then Germany a moment later (country_jump).
      const abroad = await emulated(server, world.teamId, 'ntag_424_dna');
      const a1 = await tapAndScan(abroad.id, US);
      const a2 = await tapAndScan(abroad.id, DE);
      const mine = [g1, g2, g3, r1, r2, r3, s1, s2, s3, a1, a2];
      assert.deepEqual(
        mine.map((v) => [v.attributes.reason, v.attributes.signals]),
        [
          ['ok', []],
          ['ok', ['counter_gap']],
          ['ok', []],
          ['replayed', []],
          ['replayed', []],
          ['replayed', ['replay_burst']],
          ['ok', []],
          ['ok', ['counter_gap', 'tamper_opened']],
          ['ok', ['tamper_open']],
          ['ok', []],
          ['ok', ['country_jump']],
        ],
      );
      assert.deepEqual([a1.attributes.country, a2.attributes.country], ['US', 'DE']);
      const sealOpened = new Set([s2.id, s3.id]);
      const verdict = (v: Scan) =>
        !v.attributes.genuine ? ['not genuine: replayed', 'bad'] : sealOpened.has(v.id) ? ['genuine — seal opened', 'warn'] : ['genuine', 'ok'];
      /** A scan as the console must show it: in a list of alerts (Alerts, a tag's signal history) each signal explained, in a table as badges. */
      const row = (v: Scan, options: { showTag: boolean; explained: boolean }): ScanRow => {
        const [outcome, tone] = verdict(v);
        const { signals, tag_id, read_counter, country } = v.attributes;
        const cells = options.explained
          ? [
              shown(v),
              outcome,
              ...(options.showTag ? [`Tag ${tag_id}`] : []),
              `Counter ${read_counter ?? '—'}`,
              `Country ${country ?? '—'}`,
              // Alerts links a country jump to the genuine scan it jumped from.
              ...(options.showTag && signals.includes('country_jump') ? [`Jumped from the scan in ${a1.attributes.country}`] : []),
              notes(signals),
            ]
          : [
              shown(v),
              outcome,
              // A table of scans shows each tag's comment beside it: these emulated tags have none.
              ...(options.showTag ? [tag_id, '—'] : []),
              String(read_counter ?? '—'),
              country ?? '—',
              signals.map((s) => SIGNAL_LABELS[s]).join('\n') || '—',
            ];
        return { id: v.id, outcome, tone, badges: badgeNames(signals), cells };
      };
      const alerts = () => alertRows(page, 'Alerts');
      const ids = async (read: () => Promise<{ id: string }[]>, want: Scan[]) => {
        const expected = want.map((v) => v.id);
        assert.deepEqual(await rowsOnceSettled(async () => (await read()).map((r) => r.id), expected), expected);
      };

      // Alerts: exactly the five flagged scans, newest first, each signal explained.
      await go(page, 'Alerts');
      assert.deepEqual(
        await alerts(),
        [a2, s3, s2, r3, g2].map((v) => row(v, { showTag: true, explained: true })),
      );
      const list = page.getByRole('list', { name: 'Alerts', exact: true });
      const perSignal = { counter_gap: 2, country_jump: 1, replay_burst: 1, tamper_opened: 1, tamper_open: 1 };
      for (const signal of SIGNALS)
        assert.equal(await list.getByRole('img', { name: `Signal: ${SIGNAL_LABELS[signal]}`, exact: true }).count(), perSignal[signal], signal);
      await assertAccessible(page, 'alerts');

      // The filter by signal narrows to exactly that signal's scans (tamper_open is not tamper_opened), with a tag too.
      const bySignal: Record<Signal, Scan[]> = { counter_gap: [s2, g2], country_jump: [a2], replay_burst: [r3], tamper_opened: [s2], tamper_open: [s3] };
      const signalBox = page.getByRole('combobox', { name: 'Signal' });
      assert.deepEqual(await signalBox.locator('option').allInnerTexts(), [
        'Any signal',
        'Counter gap',
        'Country jump',
        'Replay burst',
        'Seal opened',
        'Seal open',
      ]);
      for (const signal of SIGNALS) {
        await signalBox.selectOption(signal);
        await page.getByRole('button', { name: 'Apply filters' }).click();
        await page.waitForURL(new RegExp(`/console/alerts\\?signal=${signal}$`));
        await ids(alerts, bySignal[signal]);
      }
      await signalBox.selectOption('counter_gap');
      await page.getByRole('textbox', { name: 'Tag id' }).fill(seal.id);
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/tag_id=/);
      await ids(alerts, [s2]);
      assert.deepEqual((await alerts())[0], row(s2, { showTag: true, explained: true }));
      await assertAccessible(page, 'alerts filtered');
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.waitForURL(/\/console\/alerts$/);
      await ids(alerts, [a2, s3, s2, r3, g2]);
      assert.equal(await signalBox.inputValue(), '');

      // Scans: every scan with its badges, the opened seal never plain genuine.
      await go(page, 'Scans');
      const listed = await scanRows(page, 'Scans');
      assert.equal(listed.length, 13);
      assert.deepEqual(listed.slice(0, 11), mine.map((v) => row(v, { showTag: true, explained: false })).reverse());
      assert.deepEqual(
        listed.slice(11).map((r) => [r.outcome, r.tone, r.badges, r.cells[6]]),
        [
          ['not genuine: bad_cmac', 'bad', [], '—'],
          ['genuine', 'ok', [], '—'],
        ],
      );
      assert.equal(await page.getByRole('region', { name: 'Scans', exact: true }).getByRole('img', { name: 'Signal: Seal opened', exact: true }).count(), 1);

      // The tag pages: the signal history (its flagged scans, explained), and its scans with badges.
      await tab.open(`/tags/${seal.id}`);
      await page.getByRole('heading', { level: 2, name: 'Signal history' }).waitFor();
      assert.deepEqual(
        await alertRows(page, `Signals of ${seal.id}`),
        [s3, s2].map((v) => row(v, { showTag: false, explained: true })),
      );
      assert.deepEqual(
        await scanRows(page, `Scans of ${seal.id}`),
        [s3, s2, s1].map((v) => row(v, { showTag: false, explained: false })),
      );
      await assertAccessible(page, 'tag with signals');
      await tab.open(`/tags/${gap.id}`);
      await ids(() => alertRows(page, `Signals of ${gap.id}`), [r3, g2]);
      assert.equal((await scanRows(page, `Scans of ${gap.id}`)).length, 6);
      await tab.open(`/tags/${abroad.id}`);
      await ids(() => alertRows(page, `Signals of ${abroad.id}`), [a2]);
      await tab.open(`/tags/${tags['first bottle']}`);
      await page.getByText('No signals: no scan of this tag was flagged.').waitFor();

      // A scan's page: the verdict in the warning colour, each signal explained; none for an unflagged one.
      await tab.open(`/scans/${s2.id}`);
      const facts = page.locator('dl.facts');
      await facts.waitFor();
      const text = await facts.innerText();
      assert.match(text, /Outcome\s+genuine — seal opened\s+Reason\s+ok \(Genuine\)\s+Signals\s+/);
      assert.ok(text.includes(notes(['counter_gap', 'tamper_opened'])), text);
      assert.match(text, /Tamper\s+permanent open, current open/);
      assert.deepEqual(await facts.locator('.badge.warn:not([role])').allInnerTexts(), ['genuine — seal opened']);
      assert.deepEqual(
        await facts.getByRole('img').evaluateAll((badges) => badges.map((b) => b.getAttribute('aria-label'))),
        badgeNames(['counter_gap', 'tamper_opened']),
      );
      await assertAccessible(page, 'scan with signals');
      await tab.open(`/scans/${s1.id}`);
      assert.match(await facts.innerText(), /Outcome\s+genuine\s+Reason\s+ok \(Genuine\)\s+Signals\s+none\s+/);
      assert.match(await facts.innerText(), /Tamper\s+permanent closed, current closed/);

      // The Overview: 13 scans (2 from before), 5 flagged, by signal; its link opens Alerts.
      await go(page, 'Overview');
      // Beside them the open cases, whatever the window: one per tag its flagged scans came from.
      const open = await server.ctx.db.kysely.selectFrom('cases').select('tag_id').where('state', '=', 'open').execute();
      const flaggedTags = await server.ctx.db.kysely.selectFrom('verifications').select('tag_id').distinct().where('signals', 'is not', null).execute();
      assert.equal(open.length, flaggedTags.length);
      await page
        .locator('.totals')
        .getByRole('link', { name: /open cases?$/ })
        .waitFor();
      assert.match(
        await page.locator('.totals').innerText(),
        new RegExp(`^13\\s+scans\\s+9\\s+genuine\\s+4\\s+not genuine\\s+5\\s+flagged scans\\s+${open.length}\\s+open cases?$`),
      );
      assert.deepEqual(await tableRows(page, 'Scans by signal'), [
        ['Counter gap', '2'],
        ['Country jump', '1'],
        ['Replay burst', '1'],
        ['Seal opened', '1'],
        ['Seal open', '1'],
      ]);
      await page.getByText('Scans per day as a table').click();
      const daily = await tableRows(page, 'Scans per day');
      assert.equal(
        daily.reduce((sum, day) => sum + Number(day[7]), 0),
        5,
        'the Flagged column adds up to the flagged scans',
      );
      assert.deepEqual(
        await scanRows(page, 'Last scans'),
        mine
          .slice(1)
          .map((v) => row(v, { showTag: true, explained: false }))
          .reverse(),
      );
      await assertAccessible(page, 'overview with flagged scans');
      await page.getByRole('link', { name: '5 flagged scans' }).click();
      await page.getByRole('heading', { level: 1, name: 'Alerts' }).waitFor();
      await ids(alerts, [a2, s3, s2, r3, g2]);
    });

    test('the thresholds form shows the team’s thresholds, names each refused field, and saves; alerts page through by cursor', async () => {
      const { page } = tab;
      const key = world.sandbox.key;
      const thresholds = async () => (await call(server, 'GET', '/teams/current', { key })).body.data.attributes.signal_thresholds;
      await tab.open('/alerts');
      const field = (name: string) => page.getByRole('textbox', { name, exact: true });
      /** A field's value, whether it is marked invalid, and its description (hint, then error). */
      const state = (name: string) =>
        field(name).evaluate((input: HTMLInputElement) => [
          input.value,
          input.getAttribute('aria-invalid'),
          (input.getAttribute('aria-describedby') ?? '')
            .split(' ')
            .map((id) => document.getElementById(id)!.innerText)
            .join(' | '),
        ]);
      const HINTS = {
        counter_gap: 'More unverified reads than this between two genuine scans of a tag make a counter gap.',
        country_jump_window: 'A genuine scan from another country less than this after the previous one is a country jump; 0 turns it off.',
        replay_burst: 'This many refused scans of a tag within an hour make a replay burst.',
      };
      await field('Counter gap').waitFor();
      assert.deepEqual(
        [await state('Counter gap'), await state('Country jump window (seconds)'), await state('Replay burst')],
        [
          ['5', null, HINTS.counter_gap],
          ['21600', null, HINTS.country_jump_window],
          ['3', null, HINTS.replay_burst],
        ],
      );

      await field('Counter gap').fill('0');
      await field('Replay burst').fill('many');
      await page.getByRole('button', { name: 'Save thresholds' }).click();
      assert.equal(await message(page, 'alert', 'refused'), 'The thresholds were refused: see the fields marked above.');
      assert.deepEqual(
        [await state('Counter gap'), await state('Country jump window (seconds)'), await state('Replay burst')],
        [
          ['0', 'true', `${HINTS.counter_gap} | counter_gap must be an integer from 1 to 16777215`],
          ['21600', null, HINTS.country_jump_window],
          ['many', 'true', `${HINTS.replay_burst} | replay_burst must be an integer from 1 to 10000`],
        ],
      );
      assert.deepEqual(await thresholds(), DEFAULT_THRESHOLDS, 'a refused change changes nothing');
      await assertAccessible(page, 'thresholds refused');

      await field('Counter gap').fill('5');
      await field('Replay burst').fill('1');
      await page.getByRole('button', { name: 'Save thresholds' }).click();
      assert.equal(await message(page, 'status', 'Saved'), 'Saved the thresholds.');
      assert.equal(await page.getByRole('alert').count(), 0);
      assert.deepEqual(await state('Replay burst'), ['1', null, HINTS.replay_burst]);
      assert.deepEqual(await thresholds(), { ...DEFAULT_THRESHOLDS, replay_burst: 1 });

      // From now on every refusal is a burst: 25 more flagged scans make two pages of Alerts.
      const burst = await emulated(server, world.teamId, 'ntag_424_dna');
      const stale = await tapUrl(server, burst.id);
      const genuine = await verify(server, key, await tapUrl(server, burst.id));
      assert.deepEqual([genuine.body.data.attributes.reason, genuine.body.data.attributes.signals], ['ok', []], genuine.text);
      const replays: string[] = [];
      for (let i = 0; i < 25; i++) {
        const replay = await verify(server, key, stale);
        assert.deepEqual([replay.body.data.attributes.reason, replay.body.data.attributes.signals], ['replayed', ['replay_burst']], replay.text);
        replays.push(replay.body.data.id);
      }
      const before = (await call(server, 'GET', '/verifications?flagged=true&page_size=100', { key })).body.data.map((v: { id: string }) => v.id);
      assert.equal(before.length, 30, 'the five of the test before, and the 25 replays');
      assert.deepEqual(before.slice(0, 25), replays.reverse());
      await tab.open('/alerts');
      const pageIds = async () => (await alertRows(page, 'Alerts')).map((r) => r.id);
      const pager = page.getByRole('navigation', { name: 'Alert pages' });
      assert.deepEqual(await rowsOnceSettled(pageIds, before.slice(0, 25)), before.slice(0, 25));
      assert.equal(await pager.getByRole('button', { name: 'Previous page' }).isDisabled(), true);
      await pager.getByRole('button', { name: 'Next page' }).click();
      await page.waitForURL(/cursor=/);
      assert.deepEqual(await rowsOnceSettled(pageIds, before.slice(25)), before.slice(25));
      assert.equal(await pager.getByRole('button', { name: 'Next page' }).isDisabled(), true);
      await pager.getByRole('button', { name: 'Previous page' }).click();
      await page.waitForURL(/\/console\/alerts$/);
      assert.deepEqual(await rowsOnceSettled(pageIds, before.slice(0, 25)), before.slice(0, 25));
      assert.equal(await pager.getByRole('button', { name: 'Previous page' }).isDisabled(), true);
      await assertAccessible(page, 'alerts, a full page');
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
        await go(page, 'Alerts');
        await page.getByText('No flagged scans.').waitFor();
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
        for (const link of ['Overview', 'Tags', 'Scans', 'Alerts', 'Cases', 'Webhooks', 'Catalog', 'Keys', 'Users', 'Audit'] as const) {
          await go(page, link);
          await page.getByRole('status').filter({ hasText: 'Loading' }).waitFor({ state: 'detached' });
          await assertFitsWidth(page, link);
          await assertAccessible(page, `${link} at 375 px`);
        }
        for (const path of [`/tags/${tags['first bottle']}`, `/tags/${sealTagId}`, `/webhooks/${webhookId}`]) {
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
      await page.getByLabel('API key', { exact: true }).waitFor();
      assert.equal(await page.evaluate(() => sessionStorage.length), 0);
      await tab.open('/tags');
      await page.getByLabel('API key', { exact: true }).waitFor();
      assert.deepEqual(tab.errors, []);
    });
  });
}
