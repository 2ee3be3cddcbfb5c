// The Overview's map of scans and flagged scans per country, in Chromium against the real server on both
// engines: each country shaded by its scans and hatched when some were flagged, the same numbers in the
// table beside it, countries too small to draw named, at 1280 and 375 px, axe-clean, under the console's
// Content-Security-Policy. Screenshots go to
// TAPPROOF_SCREENSHOTS (default /tmp/console-shots).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { newId } from '../../src/ids.js';
import { writeOutcomes, type VerificationRow } from '../../src/verifications/repository.js';
import { consoleErrors, launchBrowser, pageErrors } from '../kit/browser.js';
import { DATABASES, call, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { assertAccessible, assertFitsWidth, consoleTab, signIn, tableRows, type ConsoleTab } from './console-page.js';

const SHOTS = process.env.TAPPROOF_SCREENSHOTS ?? '/tmp/console-shots';
const DAY_MS = 86_400_000;
/** Midnight UTC today: inside the Overview's default window (the last 30 days, today included). */
const TODAY = Math.floor(Date.now() / DAY_MS) * DAY_MS;

for (const kind of DATABASES) {
  describe(`console world map (${kind})`, () => {
    let server: TestServer;
    let browser: Browser;
    let world: SeededTeam;
    let tagId: string;

    /** `n` scans from `country` yesterday, the first `flagged` of them with a signal. */
    const scans = (country: string | null, n: number, flagged = 0): VerificationRow[] =>
      Array.from({ length: n }, (_, i) => ({
        id: newId('vrf'),
        team_id: world.teamId,
        mode: 'sandbox',
        tag_id: tagId,
        genuine: 1,
        reason: 'ok',
        read_counter: null,
        tamper_permanent: null,
        tamper_current: null,
        session_id: null,
        scanned_at: (TODAY - DAY_MS) * 1000 + i,
        url_hash: 'h',
        client_ip: null,
        country,
        write_generation: 1,
        signals: i < flagged ? 'counter_gap' : null,
      }));

    before(async () => {
      server = await startServer(kind);
      world = await server.seedTeam({ name: 'Acme' });
      const created = await call(server, 'POST', '/tags', {
        key: world.sandbox.key,
        body: { data: [{ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: 'https://brand.example/p/a', comment: 'Bottle A' } }] },
      });
      assert.equal(created.status, 201, created.text);
      tagId = created.body.data[0].id;
      // JP 40 (none flagged), DE 12 (3), US 5, SG 2 (1; too small to draw), FR 1 (1), unknown 2 (1).
      const rows = [...scans('JP', 40), ...scans('DE', 12, 3), ...scans('US', 5), ...scans('SG', 2, 1), ...scans('FR', 1, 1), ...scans(null, 2, 1)];
      await server.ctx.db.kysely.transaction().execute((trx) => writeOutcomes(trx, [], [], rows));
      browser = await launchBrowser();
      mkdirSync(SHOTS, { recursive: true });
    });
    after(async () => {
      await browser.close();
      await server.close();
    });

    /** The Overview signed in at a width, once its map is drawn. */
    async function overview(width: number): Promise<ConsoleTab> {
      const tab = await consoleTab(browser, server, { width, height: 900 });
      await tab.open('/');
      await signIn(tab.page, world.sandbox.key);
      await tab.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await tab.page.locator('svg.map').waitFor();
      return tab;
    }

    /** Each drawn country of the map with scans: its code, shade, whether hatched, and its tooltip. */
    const drawn = (page: Page) =>
      page.locator('svg.map g[data-country]').evaluateAll((groups) =>
        groups
          .map((g) => ({
            code: g.getAttribute('data-country'),
            shade: g.querySelector('path')!.getAttribute('class'),
            hatched: g.querySelector('path.hatch') !== null,
            title: g.querySelector('title')!.textContent,
          }))
          .filter((c) => c.shade !== 'country')
          .sort((a, b) => (a.code! < b.code! ? -1 : 1)),
      );

    test('each country with scans is shaded by how many and hatched when some were flagged; the table says the same', async () => {
      const tab = await overview(1280);
      const { page } = tab;
      assert.deepEqual(await tableRows(page, 'Scans by country'), [
        ['Japan (JP)', '40', '0'],
        ['Germany (DE)', '12', '3'],
        ['United States (US)', '5', '0'],
        ['Singapore (SG)', '2', '1'],
        ['France (FR)', '1', '1'],
        ['Unknown', '2', '1'],
      ]);
      assert.deepEqual(
        await page
          .locator('.table-region[aria-label="Scans by country"] thead th')
          .allInnerTexts()
          .then((t) => t.map((s) => s.trim())),
        ['Country', 'Scans', 'Flagged'],
      );
      assert.deepEqual(await drawn(page), [
        { code: 'DE', shade: 'country scanned step-4', hatched: true, title: 'Germany: 12 scans, 3 flagged' },
        { code: 'FR', shade: 'country scanned step-1', hatched: true, title: 'France: 1 scan, 1 flagged' },
        { code: 'JP', shade: 'country scanned step-5', hatched: false, title: 'Japan: 40 scans' },
        { code: 'US', shade: 'country scanned step-3', hatched: false, title: 'United States: 5 scans' },
      ]);
      // The others are drawn plain, with their names.
      assert.equal(await page.locator('svg.map g[data-country="BR"] path').getAttribute('class'), 'country');
      assert.equal(await page.locator('svg.map g[data-country="BR"] title').textContent(), 'Brazil');
      assert.equal(await page.locator('svg.map path.hatch').count(), 2);
      assert.equal(
        await page.getByRole('img', { name: /^Map of scans by country/ }).getAttribute('aria-label'),
        'Map of scans by country: 5 countries with scans, 3 of them with flagged scans. The numbers are in the table Scans by country.',
      );
      assert.equal((await page.locator('.map-figure figcaption p').innerText()).trim(), 'Too small to draw at this scale: Singapore.');
      assert.deepEqual(
        (await page.locator('.map-legend li').allInnerTexts()).map((t) => t.trim()),
        ['No scans', 'Fewer to more scans (most: 40)', 'Hatched: flagged scans'],
      );
      assert.deepEqual(tab.errors, []);
      await tab.close();
    });

    for (const width of [1280, 375]) {
      test(`at ${width} px the table is ${width > 900 ? 'beside' : 'under'} the map, nothing is wider than the screen, axe finds nothing`, async () => {
        const tab = await overview(width);
        const { page } = tab;
        const map = (await page.locator('svg.map').boundingBox())!;
        const table = (await page.locator('.table-region[aria-label="Scans by country"]').boundingBox())!;
        const placed = width > 900 ? map.x + map.width <= table.x && map.width > 500 : table.y >= map.y + map.height && map.width > 300;
        assert.ok(placed && map.x + map.width <= width, `map ${JSON.stringify(map)}, table ${JSON.stringify(table)}`);
        await assertFitsWidth(page, `overview at ${width} px`);
        await assertAccessible(page, `overview with its map at ${width} px`);
        await page.locator('section[aria-labelledby="country-heading"]').screenshot({ path: `${SHOTS}/${kind}-map-${width}.png` });
        await page.screenshot({ path: `${SHOTS}/${kind}-overview-${width}.png`, fullPage: true });
        assert.deepEqual(tab.errors, []);
        await tab.close();
      });
    }

    test('under the console’s Content-Security-Policy the map loads its chunk and draws without a violation', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const page = await context.newPage();
        const errors = pageErrors(page);
        const logged = consoleErrors(page);
        await page.goto(`${server.origin}/console/`);
        await signIn(page, world.sandbox.key);
        await page.locator('svg.map g[data-country="DE"] path.hatch').waitFor();
        assert.deepEqual(errors, []);
        assert.deepEqual(logged, []);
      } finally {
        await context.close();
      }
    });

    test('a window without scans draws no map and says so', async () => {
      const tab = await overview(1280);
      await tab.open('/?since=2020-01-01&until=2020-01-31');
      await tab.page.getByRole('heading', { level: 2, name: '2020-01-01 to 2020-01-31' }).waitFor();
      const section = tab.page.locator('section[aria-labelledby="country-heading"]');
      assert.equal((await section.locator('p').innerText()).trim(), 'No scans in this window.');
      assert.equal(await section.locator('svg.map').count(), 0);
      await tab.close();
    });
  });
}
