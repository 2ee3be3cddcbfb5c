// The Cases pages in Chromium, on both engines: a harvested tag's case listed under Open with its counts,
// its page with the timeline, the scan its country jump came from, the map, the notes and a link to all its
// scans on the Scans page; acknowledged, noted and resolved from the page, after which it sits under
// Resolved. Accessible and within the width at 1280 and 375 px.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { DATABASES } from '../kit/harness.js';
import { emulated, tapUrl, verify } from '../verifications/helpers.js';
import { assertAccessible, assertFitsWidth, go, message, signedInConsole, tableRows, type SignedInConsole } from './console-page.js';

const US = '8.8.8.8';
const DE = '5.9.0.1';
const GB = '81.2.69.142';
const HOUR = 3_600_000;
const SHOTS = '/tmp/console-shots';

for (const kind of DATABASES) {
  describe(`cases in the console (${kind})`, () => {
    let console_: SignedInConsole;
    let tagId: string;
    let caseId: string;

    before(async () => {
      mkdirSync(SHOTS, { recursive: true });
      console_ = await signedInConsole(kind, {
        seed: async (server, world) => {
          const tag = await emulated(server, world.teamId, 'ntag_424_dna');
          tagId = tag.id;
          const scan = async (url: string, ip: string) => assert.equal((await verify(server, world.sandbox.key, url, { client_ip: ip })).status, 201);
          await scan(await tapUrl(server, tag.id), US);
          const harvested: string[] = [];
          for (let i = 0; i < 8; i++) harvested.push(await tapUrl(server, tag.id));
          server.clock.advance(HOUR);
          await scan(harvested[7]!, DE);
          server.clock.advance(HOUR / 2);
          for (const ip of [GB, DE, GB]) await scan(harvested[7]!, ip);
          const cases = await server.ctx.db.kysely.selectFrom('cases').select('id').where('tag_id', '=', tag.id).execute();
          assert.equal(cases.length, 1);
          caseId = cases[0]!.id;
        },
      });
    });
    after(() => console_?.close());

    test('the open case is listed with its scans, signals and countries', async () => {
      const { page } = console_.tab;
      await page.getByRole('link', { name: '1 open case' }).waitFor();
      await go(page, 'Cases');
      const tabs = page.getByRole('navigation', { name: 'Case states' });
      await tabs.getByRole('link', { name: 'Open (1)' }).waitFor();
      assert.equal(await tabs.getByRole('link', { name: 'Open (1)' }).getAttribute('aria-current'), 'page');
      await tabs.getByRole('link', { name: 'Resolved (0)' }).waitFor();
      const rows = await tableRows(page, 'Open cases');
      assert.equal(rows.length, 1);
      const [id, tag, scans, signals, countries, , , heldBy] = rows[0]!;
      assert.deepEqual([id, tag, scans, signals, countries, heldBy], [caseId, tagId, '2', 'Counter gap, Country jump, Replay burst', 'DE, GB', 'Nobody']);
      await assertAccessible(page, 'Cases');
      await page.screenshot({ path: `${SHOTS}/${kind}-cases-1280.png`, fullPage: true });
    });

    test('the case page: facts, the timeline with the scan a jump came from, the map, then triage', async () => {
      const { page } = console_.tab;
      await page.getByRole('link', { name: caseId, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: `Case ${caseId}` }).waitFor();
      const timeline = await tableRows(page, "The case's scans");
      // Its two flagged scans (the jump and the burst), and the genuine US scan the jump came from.
      assert.deepEqual(
        timeline.map((r) => [r[1]!.includes('where a jump came from') ? 'origin' : 'case', r[3], r[5] === '—' ? null : 'jumped']),
        [
          ['case', 'GB', null],
          ['case', 'DE', 'jumped'],
          ['origin', 'US', null],
        ],
      );
      const byCountry = await tableRows(page, "The case's scans by country");
      assert.deepEqual(
        byCountry.map((r) => [r[0], r[1], r[2]]),
        [
          ['Germany (DE)', '1', '1'],
          ['United Kingdom (GB)', '1', '1'],
          ['United States (US)', '1', '0'],
        ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
      );
      await assertAccessible(page, 'Case');
      await page.screenshot({ path: `${SHOTS}/${kind}-case-1280.png`, fullPage: true });

      // All its scans on the Scans page, filtered by the case: its two flagged scans, not the genuine one.
      await page.getByRole('link', { name: 'All 2 scans', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Scans' }).waitFor();
      assert.equal(await page.getByRole('textbox', { name: 'Case id' }).inputValue(), caseId);
      const listed = await tableRows(page, 'Scans');
      assert.deepEqual(
        listed.map((r) => r.join(' ').includes('Country jump') || r.join(' ').includes('Replay burst')),
        [true, true],
      );
      await page.goBack();
      await page.getByRole('heading', { level: 1, name: `Case ${caseId}` }).waitFor();

      await page.getByRole('button', { name: 'Acknowledge', exact: true }).click();
      assert.equal(await message(page, 'status', 'Acknowledged.'), 'Acknowledged.');
      await page.getByRole('button', { name: 'Hand back', exact: true }).waitFor();
      await page.getByLabel('Note', { exact: true }).fill('Two countries within the hour: harvested.');
      await page.getByRole('button', { name: 'Add the note', exact: true }).click();
      assert.equal(await message(page, 'status', 'Note added.'), 'Note added.');
      await page.getByText('Two countries within the hour: harvested.').waitFor();
      await page.getByLabel('Resolution').selectOption('counterfeit_confirmed');
      await page.getByRole('button', { name: 'Resolve', exact: true }).click();
      assert.equal(await message(page, 'status', 'Resolved.'), 'Resolved.');
      await page.getByRole('button', { name: 'Resolve', exact: true }).waitFor({ state: 'detached' });
      const stored = await console_.server.ctx.db.kysely.selectFrom('cases').select(['state', 'resolution']).where('id', '=', caseId).executeTakeFirstOrThrow();
      assert.deepEqual(stored, { state: 'resolved', resolution: 'counterfeit_confirmed' });
      const notes = await console_.server.ctx.db.kysely.selectFrom('case_notes').select('body').where('case_id', '=', caseId).execute();
      assert.deepEqual(notes, [{ body: 'Two countries within the hour: harvested.' }]);
    });

    test('resolved, it sits under Resolved; both pages fit 375 px and pass axe there', async () => {
      const { page } = console_.tab;
      await go(page, 'Cases');
      const tabs = page.getByRole('navigation', { name: 'Case states' });
      await tabs.getByRole('link', { name: 'Open (0)' }).waitFor();
      await tabs.getByRole('link', { name: 'Resolved (1)' }).click();
      await go(page, 'Overview');
      await page.getByRole('link', { name: '0 open cases' }).waitFor();
      await go(page, 'Cases');
      await tabs.getByRole('link', { name: 'Resolved (1)' }).click();
      assert.equal((await tableRows(page, 'Resolved cases')).length, 1);
      await page.setViewportSize({ width: 375, height: 800 });
      await assertFitsWidth(page, 'Cases at 375 px');
      await assertAccessible(page, 'Cases at 375 px');
      await page.screenshot({ path: `${SHOTS}/${kind}-cases-375.png`, fullPage: true });
      await page.getByRole('link', { name: caseId, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: `Case ${caseId}` }).waitFor();
      await page.getByRole('table').first().waitFor();
      await assertFitsWidth(page, 'Case at 375 px');
      await assertAccessible(page, 'Case at 375 px');
      await page.screenshot({ path: `${SHOTS}/${kind}-case-375.png`, fullPage: true });
      assert.deepEqual(console_.tab.errors, []);
    });
  });
}
