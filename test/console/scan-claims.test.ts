// A scan's page in Chromium against the real server, on both engines: the pages the scan was claimed on
// (each a link opening in a new tab) and the proofs of its item's owner, or a line saying there are none;
// the page passes axe and fits a phone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DATABASES, call, type SeededTeam, type TestServer } from '../kit/harness.js';
import { FUNGIBLE_TOKEN, catalog, ext, genuineScan, holdings } from '../extension/helpers.js';
import { assertAccessible, assertFitsWidth, tableRows, type ConsoleTab, signedInConsole, type SignedInConsole } from './console-page.js';

/** The console's time: to the second, UTC. */
const shown = (iso: string) => `${iso.slice(0, 19).replace('T', ' ')} UTC`;

for (const kind of DATABASES) {
  describe(`console scan claims and ownership proofs (${kind})`, () => {
    let signedIn: SignedInConsole;
    let server: TestServer;
    let world: SeededTeam;
    let tab: ConsoleTab;

    before(async () => {
      // Claims and proofs go through the production extension base: a production key sees them.
      signedIn = await signedInConsole(kind, { mode: 'production' });
      ({ server, world, tab } = signedIn);
    });
    after(() => signedIn.close());

    test('a claimed and proven scan shows its claim as a link and its proof as current', async () => {
      const { page } = tab;
      const links = await catalog(server, world, 'production', FUNGIBLE_TOKEN);
      const scanned = await genuineScan(server, world, 'production', links);
      const resource = 'https://landing.example/jacket/1';
      const claimed = await ext(server, 'POST', '/claims', { body: { resource_url: resource, verification_id: scanned.publicId, note: 'bought in Lyon' } });
      assert.equal(claimed.status, 201, claimed.text);
      const owner = privateKeyToAccount(generatePrivateKey());
      await holdings(server).give(links.token, owner.address);
      const path = `/verifications/${scanned.publicId}`;
      const challenge = await ext(server, 'POST', `${path}/challenge`);
      assert.equal(challenge.status, 200, challenge.text);
      const signature = await owner.signMessage({ message: challenge.body.message });
      const proven = await ext(server, 'POST', `${path}/proof`, { body: { session_id: challenge.body.session_id, address: owner.address, signature } });
      assert.equal(proven.status, 200, proven.text);
      const claims = await call(server, 'GET', `/verifications/${scanned.id}/claims`, { key: world.production.key });
      assert.equal(claims.status, 200, claims.text);

      await tab.open(`/scans/${scanned.id}`);
      await page.getByRole('heading', { level: 1, name: `Scan ${scanned.id}` }).waitFor();
      assert.deepEqual(await tableRows(page, `Claims of ${scanned.id}`), [[resource, 'bought in Lyon', shown(claims.body.data[0].attributes.created_at)]]);
      const link = page.getByRole('region', { name: `Claims of ${scanned.id}` }).getByRole('link', { name: resource });
      assert.deepEqual(await link.evaluate((a) => [a.getAttribute('href'), a.getAttribute('target'), a.getAttribute('rel')]), [resource, '_blank', 'noopener']);
      assert.deepEqual(await tableRows(page, `Ownership proofs of ${scanned.id}`), [
        ['ethereum', owner.address, links.token, shown(proven.body.ownership.verified_at), 'current'],
      ]);
      await page.getByRole('heading', { level: 2, name: 'Claims' }).waitFor();
      await page.getByRole('heading', { level: 2, name: 'Ownership proofs' }).waitFor();
      await assertAccessible(page, 'a claimed scan');
      await page.setViewportSize({ width: 375, height: 800 });
      await assertFitsWidth(page, 'a claimed scan at 375 px');
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    test('a scan without claims or proofs says so', async () => {
      const { page } = tab;
      const scanned = await genuineScan(server, world);
      await tab.open(`/scans/${scanned.id}`);
      await page.getByRole('heading', { level: 1, name: `Scan ${scanned.id}` }).waitFor();
      await page.getByText('No claims.').waitFor();
      await page.getByText('No ownership proof.').waitFor();
      assert.equal(await page.getByRole('region', { name: `Claims of ${scanned.id}` }).count(), 0);
      assert.equal(await page.getByRole('region', { name: `Ownership proofs of ${scanned.id}` }).count(), 0);
      await assertAccessible(page, 'a scan without claims');
      assert.deepEqual(tab.errors, []);
    });
  });
}
