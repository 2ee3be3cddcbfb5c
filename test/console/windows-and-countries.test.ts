// The operator's daily questions in the console, in Chromium against the real server on both engines: the
// Overview over today, 7, 30 or 90 days or chosen dates (kept in the URL, a refused window said), and the
// Scans page filtered by country (with another filter, across pages, in its CSV export), each scan with
// its tag's comment.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { newId } from '../../src/ids.js';
import { insertVerifications, type VerificationRow } from '../../src/verifications/repository.js';
import { addScanCounts, foldScanCounts } from '../../src/verifications/scan-counts.js';
import { DATABASES, call, type SeededTeam, type TestServer } from '../kit/harness.js';
import {
  assertAccessible,
  assertFitsWidth,
  go,
  message,
  rowsOnceSettled,
  scanRows,
  tableRows,
  type ConsoleTab,
  signedInConsole,
  type SignedInConsole,
} from './console-page.js';

const DAY_MS = 86_400_000;
/** Midnight UTC of the day the test runs: the console's presets count UTC days up to today. */
const TODAY = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const dayOf = (daysAgo: number) => new Date(TODAY - daysAgo * DAY_MS).toISOString().slice(0, 10);

for (const kind of DATABASES) {
  describe(`console windows and countries (${kind})`, () => {
    let signedIn: SignedInConsole;
    let server: TestServer;
    let world: SeededTeam;
    let tab: ConsoleTab;
    let scans: VerificationRow[] = [];
    const tags = { bottle: '', cask: '', crate: '' };
    const comments: Record<string, string> = {};

    /** A scan `daysAgo` days before today (an hour into that day; today's at midnight, so never after now). */
    const scan = (tag: string, daysAgo: number, country: string, reason = 'ok', nth = 0): VerificationRow => ({
      id: newId('vrf'),
      team_id: world.teamId,
      mode: 'sandbox',
      tag_id: tag,
      genuine: reason === 'ok' ? 1 : 0,
      reason,
      read_counter: null,
      tamper_permanent: null,
      tamper_current: null,
      session_id: null,
      scanned_at: (TODAY - daysAgo * DAY_MS) * 1000 + (daysAgo === 0 ? 0 : 3_600_000_000) + nth,
      url_hash: 'h',
      client_ip: null,
      country,
      write_generation: 1,
      signals: null,
    });
    const newestFirst = (rows: VerificationRow[]) => [...rows].sort((a, b) => b.scanned_at - a.scanned_at || (a.id < b.id ? 1 : -1)).map((r) => r.id);

    before(async () => {
      signedIn = await signedInConsole(kind, {
        // `scan` reads the outer world, so it is set before the seed runs.
        seed: async (seeded, acme) => {
          [server, world] = [seeded, acme];
          const created = await call(server, 'POST', '/tags', {
            key: world.sandbox.key,
            body: {
              data: [
                { type: 'tags', attributes: { protocol: 'ntag_424_dna', url: 'https://brand.example/p/a', comment: 'Bottle A' } },
                { type: 'tags', attributes: { protocol: 'ntag_424_dna', url: 'https://brand.example/p/b', comment: 'Cask B' } },
                { type: 'tags', attributes: { protocol: 'ntag_424_dna', url: 'https://brand.example/p/c' } },
              ],
            },
          });
          assert.equal(created.status, 201, created.text);
          [tags.bottle, tags.cask, tags.crate] = created.body.data.map((t: { id: string }) => t.id);
          Object.assign(comments, { [tags.bottle]: 'Bottle A', [tags.cask]: 'Cask B', [tags.crate]: '—' });
          // 42 scans: today 2 (DE genuine, FR bad CMAC), 3 days ago 3 (DE twice, a US replay), 10 days ago 27 from NL,
          // 20 days ago 4 from FR, 60 days ago 5 from DE, 200 days ago 1 from JP; all genuine but the two.
          scans = [
            scan(tags.bottle, 0, 'DE', 'ok', 0),
            scan(tags.cask, 0, 'FR', 'bad_cmac', 1),
            scan(tags.bottle, 3, 'DE', 'ok', 0),
            scan(tags.cask, 3, 'DE', 'ok', 1),
            scan(tags.bottle, 3, 'US', 'replayed', 2),
            ...Array.from({ length: 27 }, (_, i) => scan(tags.crate, 10, 'NL', 'ok', i)),
            ...Array.from({ length: 4 }, (_, i) => scan(tags.cask, 20, 'FR', 'ok', i)),
            ...Array.from({ length: 5 }, (_, i) => scan(tags.bottle, 60, 'DE', 'ok', i)),
            scan(tags.crate, 200, 'JP'),
          ];
          await server.ctx.db.kysely.transaction().execute(async (trx) => {
            await insertVerifications(trx, scans);
            await addScanCounts(trx, foldScanCounts(scans));
          });
        },
      });
      ({ tab } = signedIn);
    });
    after(() => signedIn.close());

    test('the Overview counts over today, 7, 30 or 90 days or chosen dates, kept in the URL', async () => {
      const { page } = tab;
      const picker = page.getByRole('navigation', { name: 'Window' });
      /** The heading of the window once its numbers are in, then the totals' line. */
      const totals = async (heading: string) => {
        await page.getByRole('heading', { level: 2, name: heading, exact: true }).waitFor();
        // The open cases are read apart from the window's numbers: wait for them too.
        await page
          .locator('.totals')
          .getByRole('link', { name: /open cases?$/ })
          .waitFor();
        return (await page.locator('.totals').innerText()).replace(/\s+/g, ' ');
      };
      const current = async () => picker.locator('[aria-current="true"]').allInnerTexts();
      /** The rows of the daily table, opened first (each window's numbers start with it closed). */
      const daily = async () => {
        const details = page.locator('details').filter({ hasText: 'Scans per day as a table' });
        if (!(await details.evaluate((element) => (element as HTMLDetailsElement).open))) await details.getByText('Scans per day as a table').click();
        return tableRows(page, 'Scans per day');
      };

      // Without a choice: the last 30 days, today included.
      assert.equal(await totals(`Last 30 days (${dayOf(29)} to ${dayOf(0)})`), '36 scans 34 genuine 2 not genuine 0 flagged scans 0 open cases');
      assert.deepEqual(await current(), ['Last 30 days']);
      assert.deepEqual(await tableRows(page, 'Scans by country'), [
        ['Netherlands (NL)', '27', '0'],
        ['France (FR)', '5', '0'],
        ['Germany (DE)', '3', '0'],
        ['United States (US)', '1', '0'],
      ]);
      assert.equal((await daily()).length, 30);
      await assertAccessible(page, 'overview with its window picker');

      await picker.getByRole('link', { name: 'Today' }).click();
      await page.waitForURL(/\/console\/\?days=1$/);
      assert.equal(await totals(`Today (${dayOf(0)})`), '2 scans 1 genuine 1 not genuine 0 flagged scans 0 open cases');
      assert.deepEqual(await current(), ['Today']);
      assert.deepEqual(await tableRows(page, 'Scans by country'), [
        ['Germany (DE)', '1', '0'],
        ['France (FR)', '1', '0'],
      ]);
      assert.equal((await daily()).length, 1);

      await picker.getByRole('link', { name: 'Last 7 days' }).click();
      await page.waitForURL(/\/console\/\?days=7$/);
      assert.equal(await totals(`Last 7 days (${dayOf(6)} to ${dayOf(0)})`), '5 scans 3 genuine 2 not genuine 0 flagged scans 0 open cases');
      assert.deepEqual(await tableRows(page, 'Scans by country'), [
        ['Germany (DE)', '3', '0'],
        ['France (FR)', '1', '0'],
        ['United States (US)', '1', '0'],
      ]);
      const week = await daily();
      assert.deepEqual(
        week.map((row) => [row[0], row[1]]),
        [6, 5, 4, 3, 2, 1, 0].map((ago) => [dayOf(ago), ago === 3 ? '3' : ago === 0 ? '2' : '0']),
      );

      await picker.getByRole('link', { name: 'Last 90 days' }).click();
      await page.waitForURL(/\/console\/\?days=90$/);
      assert.equal(await totals(`Last 90 days (${dayOf(89)} to ${dayOf(0)})`), '41 scans 39 genuine 2 not genuine 0 flagged scans 0 open cases');
      assert.equal((await daily()).length, 90);

      // A reload (or a shared link) shows the same window; so does the back button.
      await tab.open('/?days=7');
      assert.equal(await totals(`Last 7 days (${dayOf(6)} to ${dayOf(0)})`), '5 scans 3 genuine 2 not genuine 0 flagged scans 0 open cases');
      await page.goBack();
      assert.equal(await totals(`Last 90 days (${dayOf(89)} to ${dayOf(0)})`), '41 scans 39 genuine 2 not genuine 0 flagged scans 0 open cases');

      // Chosen dates, both days included; the fields start from the window shown.
      const custom = page.getByRole('form', { name: 'Custom window' });
      assert.deepEqual([await custom.getByLabel('From').inputValue(), await custom.getByLabel('To').inputValue()], [dayOf(89), dayOf(0)]);
      await custom.getByLabel('From').fill(dayOf(200));
      await custom.getByLabel('To').fill(dayOf(60));
      await custom.getByRole('button', { name: 'Show these days' }).click();
      await page.waitForURL(new RegExp(`\\?since=${dayOf(200)}&until=${dayOf(60)}$`));
      assert.equal(await totals(`${dayOf(200)} to ${dayOf(60)}`), '6 scans 6 genuine 0 not genuine 0 flagged scans 0 open cases');
      assert.deepEqual(await current(), []);
      assert.deepEqual(await tableRows(page, 'Scans by country'), [
        ['Germany (DE)', '5', '0'],
        ['Japan (JP)', '1', '0'],
      ]);
      assert.equal((await daily()).length, 141);
      await assertAccessible(page, 'overview over chosen dates');
      await tab.open(`/?since=${dayOf(10)}&until=${dayOf(10)}`);
      assert.equal(await totals(dayOf(10)), '27 scans 27 genuine 0 not genuine 0 flagged scans 0 open cases');

      // Windows the API refuses: said, with no numbers.
      await custom.getByLabel('From').fill(dayOf(0));
      await custom.getByLabel('To').fill(dayOf(3));
      await custom.getByRole('button', { name: 'Show these days' }).click();
      assert.equal(await message(page, 'alert', 'until'), '400 Invalid query parameter: until must not be before since');
      assert.equal(await page.locator('.totals').count(), 0);
      await tab.open(`/?since=${dayOf(400)}&until=${dayOf(0)}`);
      assert.equal(await message(page, 'alert', 'since'), '400 Invalid query parameter: since must be at most 365 days before until (366 days)');
      // A preset again after a refusal.
      await picker.getByRole('link', { name: 'Last 30 days' }).click();
      assert.equal(await totals(`Last 30 days (${dayOf(29)} to ${dayOf(0)})`), '36 scans 34 genuine 2 not genuine 0 flagged scans 0 open cases');

      // The last scans, whatever the window, with their tags' comments.
      const last = await scanRows(page, 'Last scans');
      assert.deepEqual(
        last.slice(0, 5).map((r) => [r.cells[2], r.cells[3], r.cells[5]]),
        [
          [tags.cask, 'Cask B', 'FR'],
          [tags.bottle, 'Bottle A', 'DE'],
          [tags.bottle, 'Bottle A', 'US'],
          [tags.cask, 'Cask B', 'DE'],
          [tags.bottle, 'Bottle A', 'DE'],
        ],
      );
      assert.equal(last.length, 10);
      assert.deepEqual(
        last.slice(5).map((r) => r.cells[3]),
        ['—', '—', '—', '—', '—'],
      );

      await page.setViewportSize({ width: 375, height: 800 });
      await assertFitsWidth(page, 'overview with its window picker at 375 px');
      await page.setViewportSize({ width: 1280, height: 900 });
      assert.deepEqual(tab.errors, []);
    });

    test('Scans by country: exactly its scans, with another filter, across pages, in the CSV; a code that is not one is refused', async () => {
      const { page } = tab;
      const form = page.getByRole('form', { name: 'Filter scans' });
      const apply = async (filters: { country?: string; outcome?: string }) => {
        await form.getByRole('textbox', { name: 'Country' }).fill(filters.country ?? '');
        await form.getByRole('combobox', { name: 'Outcome' }).selectOption(filters.outcome ?? '');
        await form.getByRole('button', { name: 'Apply filters' }).click();
      };
      const ids = async (want: string[]) => (await rowsOnceSettled(async () => (await scanRows(page, 'Scans')).map((r) => r.id), want)).length;
      const shown = (rows: VerificationRow[]) => rows.map((r) => [r.tag_id, comments[r.tag_id], r.country]);

      await go(page, 'Scans');
      assert.equal(await ids(newestFirst(scans).slice(0, 25)), 25);

      // Typed in lower case, applied as the code: the eight German scans, each with its tag's comment.
      await apply({ country: 'de' });
      await page.waitForURL(/\/console\/scans\?country=DE$/);
      const german = scans.filter((s) => s.country === 'DE');
      assert.equal(await ids(newestFirst(german)), 8);
      assert.deepEqual(
        (await scanRows(page, 'Scans')).map((r) => [r.cells[2], r.cells[3], r.cells[5]]),
        shown(newestFirst(german).map((id) => scans.find((s) => s.id === id)!)),
      );
      assert.equal(await form.getByRole('textbox', { name: 'Country' }).inputValue(), 'DE');
      await assertAccessible(page, 'scans of a country');

      // With another filter: France's genuine scans are the four of 20 days ago, not today's bad CMAC.
      await apply({ country: 'FR', outcome: 'true' });
      await page.waitForURL(/country=FR/);
      assert.equal(await ids(newestFirst(scans.filter((s) => s.country === 'FR' && s.genuine === 1))), 4);
      await apply({ country: 'FR', outcome: 'false' });
      await page.waitForURL(/genuine=false/);
      assert.equal(await ids(newestFirst(scans.filter((s) => s.country === 'FR' && s.genuine === 0))), 1);

      // 27 Dutch scans: a page of 25 and one of 2, and back; the one tag they share is read at most once.
      let tagReads = 0;
      const countTagReads = (request: { url(): string }) => {
        if (/\/api\/v1\/tags\/tag_/.test(request.url())) tagReads += 1;
      };
      page.on('request', countTagReads);
      await apply({ country: 'NL' });
      await page.waitForURL(/\/console\/scans\?country=NL$/);
      const dutch = newestFirst(scans.filter((s) => s.country === 'NL'));
      assert.equal(await ids(dutch.slice(0, 25)), 25);
      const pages = page.getByRole('navigation', { name: 'Scan pages' });
      await pages.getByRole('button', { name: 'Next page' }).click();
      await page.waitForURL(/country=NL&cursor=/);
      assert.equal(await ids(dutch.slice(25)), 2);
      assert.ok((await scanRows(page, 'Scans')).every((r) => r.cells[3] === '—' && r.cells[5] === 'NL'));
      assert.equal(await pages.getByRole('button', { name: 'Next page' }).isDisabled(), true);

      // The CSV holds every Dutch scan, not only this page: the filters without the cursor.
      const [download, request] = await Promise.all([
        page.waitForEvent('download'),
        page.waitForRequest(/\/api\/v1\/verifications\/export/),
        page.getByRole('button', { name: 'Export CSV' }).click(),
      ]);
      assert.deepEqual([...new URL(request.url()).searchParams.entries()], [['country', 'NL']]);
      assert.match(download.suggestedFilename(), /^scans-sandbox-\d{4}-\d{2}-\d{2}\.csv$/);
      const lines = readFileSync(await download.path(), 'utf8')
        .split('\r\n')
        .slice(0, -1);
      assert.equal(lines.length, 1 + 27);
      assert.deepEqual(
        lines.slice(1).map((line) => line.slice(0, line.indexOf(','))),
        dutch,
      );
      assert.ok(lines.slice(1).every((line) => line.split(',')[9] === 'NL'));

      await pages.getByRole('button', { name: 'Previous page' }).click();
      await page.waitForURL(/\/console\/scans\?country=NL$/);
      assert.equal(await ids(dutch.slice(0, 25)), 25);
      page.off('request', countTagReads);
      assert.ok(tagReads <= 1, `${tagReads} reads of the Dutch scans' one tag`);

      // Not a two-letter code: the API's refusal, named.
      await apply({ country: 'DEU' });
      await page.waitForURL(/country=DEU/);
      assert.equal(
        await message(page, 'alert', 'country'),
        '400 Invalid query parameter: country must be an ISO 3166-1 alpha-2 code, two capital letters (DE)',
      );
      // A code no scan has: an empty list.
      await apply({ country: 'ZZ' });
      await page.waitForURL(/country=ZZ/);
      await page.getByText('No scans.').waitFor();
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.waitForURL(/\/console\/scans$/);
      assert.equal(await form.getByRole('textbox', { name: 'Country' }).inputValue(), '');
      assert.deepEqual(tab.errors, []);
    });
  });
}
