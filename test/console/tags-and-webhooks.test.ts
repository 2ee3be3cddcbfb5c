// What a new operator meets on the console's tag and webhook pages, in Chromium against the real server
// on both engines: a webhook form that starts afresh and subscribes to exactly what is ticked, deletion
// offered only where the API allows it, a write's round trips counted alike by the console, the writer
// and the API, tags as cards on a phone, a warning for a url a phone cannot open, and the tags' CSV export
// carrying the page's search and status.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { DATABASES, call, type SeededTeam, type TestServer } from '../kit/harness.js';
import { emulated } from '../verifications/helpers.js';
import { createdTag, newCard, writeTag } from '../writer/helpers.js';
import { FAST_WEBHOOKS } from '../webhooks/receiver.js';
import { configure, createTags } from '../tags/helpers.js';
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

const UNOPENABLE = /not an http\(s\) URL a phone can open/;
/** The form's events: the four tag events the API subscribes a webhook to by default, then the opt-in ones. */
const DEFAULT_EVENTS = ['tag.created', 'tag.configured', 'tag.configuration_failed', 'tag.deleted'];
const EVENT_TYPES = [...DEFAULT_EVENTS, 'verification.flagged', 'tag.rekeyed', 'case.opened', 'case.updated'];

for (const kind of DATABASES) {
  describe(`console tags and webhooks (${kind})`, () => {
    let signedIn: SignedInConsole;
    let server: TestServer;
    let browser: Browser;
    let world: SeededTeam;
    let tab: ConsoleTab;

    before(async () => {
      // No delivery worker: the webhooks are only created, never called.
      signedIn = await signedInConsole(kind, { env: FAST_WEBHOOKS });
      ({ server, browser, world, tab } = signedIn);
    });
    after(() => signedIn.close());

    test('each new webhook form starts with the default events and subscribes to exactly the ticked ones', async () => {
      const { page } = tab;
      await go(page, 'Webhooks');
      const form = page.getByRole('region', { name: 'Create a webhook' });
      const box = (type: string) => form.getByRole('checkbox', { name: type, exact: true });
      const ticked = async () => {
        const out: string[] = [];
        for (const type of EVENT_TYPES) if (await box(type).isChecked()) out.push(type);
        return out;
      };
      const create = async (url: string, events: string[]) => {
        await form.getByLabel('Receiver URL').fill(url);
        for (const type of EVENT_TYPES) await box(type).setChecked(events.includes(type));
        await form.getByRole('button', { name: 'Create webhook' }).click();
        const id = (await message(page, 'status', 'Created webhook')).replace(/^Created webhook (whk_\w+)\.$/, '$1');
        await page.getByRole('button', { name: 'I have kept it' }).click();
        return (await call(server, 'GET', `/webhooks/${id}`, { key: world.sandbox.key })).body.data.attributes.events;
      };

      assert.deepEqual(await ticked(), DEFAULT_EVENTS);
      assert.deepEqual(await create('http://127.0.0.1:9/first', ['tag.created', 'tag.deleted']), ['tag.created', 'tag.deleted']);
      assert.deepEqual(await ticked(), DEFAULT_EVENTS, 'the form is back at its default after a creation');
      assert.equal(await form.getByLabel('Receiver URL').inputValue(), '');
      assert.deepEqual(await create('http://127.0.0.1:9/second', ['tag.configured', 'verification.flagged']), ['tag.configured', 'verification.flagged']);

      // A reload of the list (another page and back) starts from the default too.
      await go(page, 'Tags');
      await go(page, 'Webhooks');
      assert.deepEqual(await ticked(), DEFAULT_EVENTS);
      const rows = await tableRows(page, 'Webhooks');
      assert.deepEqual(rows.map((row) => [row[1], row[2]]).sort(), [
        ['http://127.0.0.1:9/first', 'tag.created, tag.deleted'],
        ['http://127.0.0.1:9/second', 'tag.configured, verification.flagged'],
      ]);
      await assertAccessible(page, 'webhooks after two creations');
    });

    test('a created tag offers deletion and is deleted; a configured one says why it cannot be', async () => {
      const { page } = tab;
      const created = await createdTag(server, world.sandbox.key);
      const configured = await emulated(server, world.teamId, 'ntag_424_dna');

      await tab.open(`/tags/${configured.id}`);
      await page.getByRole('heading', { level: 1, name: `Tag ${configured.id}` }).waitFor();
      const danger = page.getByRole('region', { name: 'Delete' });
      await danger.getByText('A configured tag cannot be deleted').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Delete this tag' }).count(), 0);
      await assertAccessible(page, 'a configured tag');

      await tab.open(`/tags/${created.id}`);
      await page.getByRole('heading', { level: 1, name: `Tag ${created.id}` }).waitFor();
      const button = page.getByRole('button', { name: 'Delete this tag' });
      await button.waitFor();
      assert.equal(await danger.getByText('A configured tag cannot be deleted').count(), 0);
      page.once('dialog', (dialog) => void dialog.accept());
      await button.click();
      await page.getByRole('heading', { level: 1, name: 'Tags' }).waitFor();
      assert.equal((await call(server, 'GET', `/tags/${created.id}`, { key: world.sandbox.key })).status, 404);
    });

    test('deleting a created and a configured tag together says which was deleted and which was kept', async () => {
      const { page } = tab;
      const created = await createdTag(server, world.sandbox.key);
      const configured = await emulated(server, world.teamId, 'ntag_424_dna');
      await tab.open('/tags');
      await page.getByRole('heading', { level: 1, name: 'Tags' }).waitFor();
      for (const id of [created.id, configured.id]) await page.getByRole('checkbox', { name: `Select ${id}` }).check();
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Delete selected (2)' }).click();
      assert.equal(await message(page, 'status', 'Deleted'), 'Deleted 1 tag. Kept 1 tag: a configured tag is never deleted.');
      assert.equal((await call(server, 'GET', `/tags/${created.id}`, { key: world.sandbox.key })).status, 404);
      assert.equal((await call(server, 'GET', `/tags/${configured.id}`, { key: world.sandbox.key })).status, 200);
    });

    test("a write's round trips: the console shows the number the API records and the writer reports", async () => {
      const { page } = tab;
      const { id } = await createdTag(server, world.sandbox.key);
      // The writer's own client: `tapproof writer` prints its roundTrips (test/writer/cli.test.ts).
      const written = await writeTag(server, world.sandbox.key, id, newCard());
      assert.equal(written.status, 'configured', JSON.stringify(written));
      const writes = await call(server, 'GET', `/tags/${id}/writes`, { key: world.sandbox.key });
      const recorded = writes.body.data[0].attributes.round_trips;
      // An AES write: probe, auth, personalize (docs/writer.md).
      assert.equal(recorded, 3);
      assert.equal(written.roundTrips, recorded);

      await tab.open(`/tags/${id}`);
      const rows = await tableRows(page, `Writes of ${id}`);
      assert.deepEqual(
        rows.map((row) => [row[1], row[3]]),
        [['configured', String(written.roundTrips)]],
      );
    });

    test('at 375 px each tag is a card with its url and status; at 1280 px the tags stay a table', async () => {
      const team = await server.seedTeam({ name: 'Cards' });
      const long = `https://brand.example/products/${'a-rather-long-path-segment/'.repeat(3)}item?id=1234567890`;
      const created = await call(server, 'POST', '/tags', {
        key: team.sandbox.key,
        body: {
          data: [
            { type: 'tags', attributes: { protocol: 'ntag_424_dna', url: long, comment: 'long url' } },
            { type: 'tags', attributes: { protocol: 'ntag_424_dna', url: 'https://brand.example/p/2', comment: 'short url' } },
          ],
        },
      });
      assert.equal(created.status, 201, created.text);
      const tags = created.body.data as { id: string; attributes: { url: string; comment: string } }[];

      const phone = await consoleTab(browser, server, { width: 375, height: 812 });
      try {
        const { page } = phone;
        await phone.open('/');
        await signIn(page, team.sandbox.key);
        await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        await go(page, 'Tags');
        const list = page.getByRole('list', { name: 'Tags', exact: true });
        await list.waitFor();
        assert.equal(await list.getByRole('listitem').count(), 2);
        for (const tag of tags) {
          const card = list.getByRole('listitem').filter({ has: page.getByRole('link', { name: tag.id, exact: true }) });
          for (const text of [tag.attributes.url, 'created', tag.attributes.comment]) {
            const shown = card.getByText(text, { exact: true });
            assert.ok(await shown.isVisible(), `${tag.id}: ${text} is visible`);
            const box = (await shown.boundingBox())!;
            assert.ok(box.x >= 0 && box.x + box.width <= 375, `${tag.id}: ${text} lies within the screen (${JSON.stringify(box)})`);
          }
        }
        assert.equal(await page.getByRole('table').count(), 0, 'no table columns at 375 px');
        await assertFitsWidth(page, 'tags at 375 px');
        await assertAccessible(page, 'tags as cards at 375 px');
        assert.deepEqual(phone.errors, []);
      } finally {
        await phone.close();
      }

      const desk = await consoleTab(browser, server);
      try {
        const { page } = desk;
        await desk.open('/');
        await signIn(page, team.sandbox.key);
        await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        await go(page, 'Tags');
        const rows = await tableRows(page, 'Tags');
        assert.deepEqual(rows.map((row) => row.slice(2, 5)).sort(), [
          ['created', 'long url', long],
          ['created', 'short url', 'https://brand.example/p/2'],
        ]);
        assert.equal(await page.getByRole('list', { name: 'Tags', exact: true }).count(), 0);
      } finally {
        await desk.close();
      }
    });

    test("Export CSV downloads the tags' export with the page's search and status", async () => {
      const team = await server.seedTeam({ name: 'Export' });
      const [one, two, shelf] = await createTags(server, team.sandbox.key, [{ comment: 'crate one' }, { comment: 'crate two' }, { comment: 'shelf' }]);
      await configure(server, team, one.id);
      const desk = await consoleTab(browser, server);
      try {
        const { page } = desk;
        await desk.open('/');
        await signIn(page, team.sandbox.key);
        await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        await desk.open('/tags?q=crate&status=configured');
        const button = page.getByRole('button', { name: 'Export CSV', exact: true });
        /** The query the button sent to the export, and the ids of the CSV it saved under the server's name. */
        const exported = async () => {
          const [request, download] = await Promise.all([
            page.waitForRequest((r) => r.url().startsWith(`${server.base}/tags/export`)),
            page.waitForEvent('download'),
            button.click(),
          ]);
          assert.equal(new URL(request.url()).pathname, `${new URL(server.base).pathname}/tags/export`);
          assert.match(download.suggestedFilename(), /^tags-sandbox-\d{4}-\d{2}-\d{2}\.csv$/);
          const lines = readFileSync(await download.path(), 'utf8')
            .split('\r\n')
            .slice(0, -1);
          assert.equal(lines[0], 'id,protocol,url,status,comment,session_duration,chip_uid,configured_at,inserted_at,updated_at');
          return { query: Object.fromEntries(new URL(request.url()).searchParams), ids: lines.slice(1).map((line) => line.slice(0, line.indexOf(','))) };
        };
        assert.deepEqual(await exported(), { query: { q: 'crate', status: 'configured' }, ids: [one.id] });
        await assertAccessible(page, 'tags with the export button');

        // The filters as the page changes them: the status select, then the search box.
        await page.getByRole('combobox', { name: 'Status' }).selectOption('');
        await page.getByRole('status').filter({ hasText: '2 tags' }).waitFor();
        assert.deepEqual(await exported(), { query: { q: 'crate' }, ids: [one.id, two.id].sort() });
        await page.getByRole('searchbox', { name: 'Search' }).fill('shelf');
        await page.getByRole('button', { name: 'Search', exact: true }).click();
        await page.getByRole('status').filter({ hasText: '1 tag,' }).waitFor();
        assert.deepEqual(await exported(), { query: { q: 'shelf' }, ids: [shelf.id] });
        assert.deepEqual(desk.errors, []);
      } finally {
        await desk.close();
      }
    });

    test('the creation form warns about a url a phone cannot open, and still creates the tag', async () => {
      const { page } = tab;
      await go(page, 'Tags');
      const csv = page.getByLabel('Tags as CSV');
      await csv.fill('url,comment\nhttps://brand.example/p/ok,fine\nnot-a-url,bare\nftp://files.example/p,ftp\nhttps://,no host\n');
      const warning = page.getByRole('status').filter({ hasText: UNOPENABLE });
      await warning.waitFor();
      const text = await warning.innerText();
      for (const line of ['Line 3: not-a-url', 'Line 4: ftp://files.example/p', 'Line 5: https://']) assert.ok(text.includes(line), text);
      assert.ok(!text.includes('brand.example/p/ok'), text);
      await assertAccessible(page, 'tags with a url warning');

      await page.getByRole('button', { name: 'Create tags' }).click();
      assert.equal(await message(page, 'status', 'Created 4 of'), 'Created 4 of 4 tags.');
      const listed = await call(server, 'GET', '/tags?page_size=100', { key: world.sandbox.key });
      const urls = listed.body.data.map((t: { attributes: { url: string } }) => t.attributes.url);
      for (const url of ['not-a-url', 'ftp://files.example/p', 'https://']) assert.ok(urls.includes(url), `${url} was created`);
      assert.equal(await warning.count(), 0, 'the warning goes with the text it was about');

      // Good urls alone: no warning.
      await csv.fill('url\nhttp://brand.example/p/plain\nhttps://[2001:db8::1]/p\n');
      await page.getByRole('button', { name: 'Create tags' }).isEnabled();
      assert.equal(await page.getByRole('status').filter({ hasText: UNOPENABLE }).count(), 0);

      // A tag with such a url says so on its page, where it is about to be written.
      const bare = listed.body.data.find((t: { attributes: { url: string } }) => t.attributes.url === 'not-a-url');
      await tab.open(`/tags/${bare.id}`);
      await page.getByRole('heading', { level: 1, name: `Tag ${bare.id}` }).waitFor();
      await page.getByRole('status').filter({ hasText: UNOPENABLE }).waitFor();
      await assertAccessible(page, 'a tag with a url a phone cannot open');
    });
  });
}
