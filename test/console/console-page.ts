// Steps of the console tests in a real Chromium: open a console path, sign in, and the checks every
// page must pass (axe-core: no serious or critical violation; no horizontal scroll at 375 px).
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, pageErrors, seriousViolations } from '../kit/browser.js';
import { startServer, type DatabaseKind, type SeededTeam, type TestServer } from '../kit/harness.js';
import { cliActor } from '../../src/audit/record.js';
import { inviteUser } from '../../src/users/service.js';
import { PASSWORD } from '../users/helpers.js';

export interface ConsoleTab {
  page: Page;
  context: BrowserContext;
  errors: Error[];
  /** Opens /console + path (a full load, as a bookmark or a reload would). */
  open(path: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A fresh tab (its own sessionStorage). axe-core is injected as an inline script, which the console's
 * Content-Security-Policy forbids: the tab bypasses CSP; test/console/static.test.ts loads the
 * console under its CSP.
 */
export async function consoleTab(browser: Browser, server: TestServer, viewport = { width: 1280, height: 900 }): Promise<ConsoleTab> {
  const context = await browser.newContext({ bypassCSP: true, viewport });
  const page = await context.newPage();
  const errors = pageErrors(page);
  return {
    page,
    context,
    errors,
    open: async (path) => {
      await page.goto(`${server.origin}/console${path}`);
    },
    close: () => context.close(),
  };
}

/** A server, its team Acme, a browser and a tab signed in with one of the team's keys, on the Overview. */
export interface SignedInConsole {
  server: TestServer;
  world: SeededTeam;
  browser: Browser;
  tab: ConsoleTab;
  /** Closes the tab, the browser and the server. */
  close(): Promise<void>;
}

/**
 * What most console suites start from. `seed` runs before the browser starts, for what the pages
 * must show on first load; `mode` picks the key (the extension's claims and proofs are production's).
 */
export async function signedInConsole(
  kind: DatabaseKind,
  options: { env?: Record<string, string>; mode?: 'sandbox' | 'production'; seed?: (server: TestServer, world: SeededTeam) => Promise<void> } = {},
): Promise<SignedInConsole> {
  const server = await startServer(kind, options.env);
  const world = await server.seedTeam({ name: 'Acme' });
  await options.seed?.(server, world);
  const browser = await launchBrowser();
  const tab = await consoleTab(browser, server);
  await tab.open('/');
  await signIn(tab.page, world[options.mode ?? 'sandbox'].key);
  await tab.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return {
    server,
    world,
    browser,
    tab,
    close: async () => {
      await tab.close();
      await browser.close();
      await server.close();
    },
  };
}

export async function signIn(page: Page, key: string): Promise<void> {
  await page.getByLabel('API key', { exact: true }).fill(key);
  await page.getByRole('button', { name: 'Sign in with the key', exact: true }).click();
}

/** Follows a link of the main navigation and waits for the page's heading. */
export async function go(
  page: Page,
  link: 'Overview' | 'Tags' | 'Scans' | 'Alerts' | 'Cases' | 'Webhooks' | 'Catalog' | 'Keys' | 'Users' | 'Audit',
): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: link }).waitFor();
}

/** The page as it stands has no serious or critical axe violation. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  const violations = await seriousViolations(page);
  assert.deepEqual(violations, [], `${what}: ${JSON.stringify(violations, null, 1)}`);
}

/** Nothing on the page is wider than the viewport (tables scroll inside their own region). */
export async function assertFitsWidth(page: Page, what: string): Promise<void> {
  const { scroll, width, wide } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
    // The outermost elements that stick out, to name in the failure.
    wide: [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth && !e.parentElement?.closest('.table-region'))
      .slice(0, 3)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${(e as HTMLElement).innerText?.slice(0, 40)}`),
  }));
  assert.ok(scroll <= width, `${what}: the page is ${scroll} px wide in a ${width} px viewport: ${wide.join(' | ')}`);
}

/** The text of the status or alert line that contains `text`, once it shows. */
export async function message(page: Page, role: 'status' | 'alert', text: string): Promise<string> {
  const line = page.getByRole(role).filter({ hasText: text }).first();
  await line.waitFor();
  return (await line.innerText()).trim();
}

/** The rows of the table in the region named `label`, as cell texts. */
export async function tableRows(page: Page, label: string): Promise<string[][]> {
  // The table's own scroll region (a labelled section is a region too).
  const region = page.locator(`.table-region[aria-label="${label}"]`);
  await region.waitFor();
  return region.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => (cell as HTMLElement).innerText.trim())));
}

export interface ScanRow {
  /** The scan's id, from the link of its Scanned cell. */
  id: string;
  /** The Outcome cell's text and the class of its badge (ok, warn, bad). */
  outcome: string;
  tone: string;
  /** The accessible names of the signal badges, in order. */
  badges: string[];
  cells: string[];
}

/** The rows of a scan table (the shared ScanTable) in the region named `label`; cells as shown, badges by their accessible names. */
export async function scanRows(page: Page, label: string): Promise<ScanRow[]> {
  const region = page.locator(`.table-region[aria-label="${label}"]`);
  await region.waitFor();
  return region.locator('tbody tr').evaluateAll((rows) =>
    rows.map((row) => {
      const badge = row.querySelector('td:nth-child(2) .badge')!;
      return {
        id: row
          .querySelector('a')!
          .getAttribute('href')!
          .replace(/^.*\/scans\//, ''),
        outcome: (badge as HTMLElement).innerText.trim(),
        tone: [...badge.classList].filter((c) => c !== 'badge').join(' '),
        badges: [...row.querySelectorAll('[role="img"]')].map((b) => b.getAttribute('aria-label') ?? ''),
        cells: [...row.children].map((cell) => (cell as HTMLElement).innerText.trim()),
      };
    }),
  );
}

/** The items of an alert list (Alerts, a tag's signal history) named `label`: cells are the scan's parts, then its signals' notes. */
export async function alertRows(page: Page, label: string): Promise<ScanRow[]> {
  const list = page.locator(`ol.alerts[aria-label="${label}"]`);
  await list.waitFor();
  return list.locator(':scope > li').evaluateAll((items) =>
    items.map((item) => {
      const scan = item.querySelector('.alert-scan')!;
      const badge = scan.querySelector('.badge')!;
      return {
        id: scan
          .querySelector('a')!
          .getAttribute('href')!
          .replace(/^.*\/scans\//, ''),
        outcome: (badge as HTMLElement).innerText.trim(),
        tone: [...badge.classList].filter((c) => c !== 'badge').join(' '),
        badges: [...item.querySelectorAll('[role="img"]')].map((b) => b.getAttribute('aria-label') ?? ''),
        cells: [
          ...[...scan.children].map((part) => (part as HTMLElement).innerText.trim()),
          (item.querySelector('.signal-notes') as HTMLElement).innerText.trim(),
        ],
      };
    }),
  );
}

/**
 * The rows once `read` gives what `want` expects: a filter or a page changes the URL before the list
 * reloads, so the old rows can still be on screen for a moment. The last reading after `ms` otherwise,
 * for the caller's assertion to show.
 */
export async function rowsOnceSettled<T>(read: () => Promise<T>, want: unknown, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const rows = await read();
    if (JSON.stringify(rows) === JSON.stringify(want) || Date.now() > until) return rows;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A new tab in which `email`, invited to the team as `role`, has set a password from its link and is on the Overview. */
export async function personTab(
  browser: Browser,
  server: TestServer,
  teamId: string,
  email: string,
  role: 'admin' | 'write' | 'read',
  viewport?: { width: number; height: number },
): Promise<ConsoleTab> {
  const opened = await consoleTab(browser, server, viewport);
  const { link } = await inviteUser(server.ctx, { teamId, actor: cliActor() }, { email, role }, server.origin);
  await opened.page.goto(link.url);
  await opened.page.getByLabel('New password').fill(PASSWORD);
  await opened.page.getByLabel('Repeat the password').fill(PASSWORD);
  await opened.page.getByRole('button', { name: 'Set password and sign in' }).click();
  await opened.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return opened;
}
