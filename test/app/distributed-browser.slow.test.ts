/**
 * The sandbox in a real browser (Debian's chromium through playwright-core), with Lookout
 * started as `npm start` starts it (src/sandboxed.ts) but installed nowhere: in each of the two
 * workspaces a person adds Lookout from its page (the app's install page, the authorise screen,
 * Allow, the redirect back), connects it from the Home to the demo account the page shows for
 * that workspace, and runs `/traffic sources last7d`. Each report has its own account's
 * sources, figure for figure as the demo API gives them to that account's key, and not the
 * other's. No screenshots. Skips, saying why, when chromium is not installed
 * (`apt-get install chromium`).
 */
import { existsSync } from 'node:fs';
import { startSandbox, type Sandbox } from '@lookout/sandbox';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_WITHIN_MS } from '../../src/features/workspace/listeners.js';
import { createLogger } from '../../src/platform/log.js';
import { startSandboxed, type SandboxedLookout } from '../../src/sandboxed.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);

if (!available) {
  console.warn(
    `[browser] skipped: no chromium at ${CHROMIUM} (install it with "apt-get install -y chromium", or set CHROMIUM_PATH)`,
  );
}

/** Other Co connects while the analytics API is slower than a form may wait (the "Trying the key…" form). */
const WORKSPACES = [
  { team: 'T_LOOKOUT', name: 'Lookout Sandbox', account: 'one', slowApi: false },
  { team: 'T_OTHER', name: 'Other Co', account: 'two', slowApi: true },
] as const;

/** A source as a report shows it, or as the demo API gives it: its name and its visits. */
type Figure = [name: string, visits: number];

describe.skipIf(!available)('the distributed sandbox in a browser', () => {
  let box: Sandbox<SandboxedLookout>;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const reports = new Map<string, { shown: Figure[]; dates: { start_date: string; end_date: string } }>();

  beforeAll(async () => {
    const log = createLogger({ level: 'silent' });
    box = await startSandbox({
      log,
      // `npm start` installs the app in workspace one before it prints the URL; here a person does, in the browser.
      slack: { installed: false },
      startApp: (wiring) =>
        startSandboxed(
          {
            log,
            port: 0,
            store: { memory: true },
            scheduler: false,
            limits: { userRequests: 100_000 },
          },
          wiring,
        ),
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1320, height: 900 }, locale: 'en-US' });
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // A failed load is reported by its response below, with its URL.
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource'))
        problems.push(`console: ${msg.text()}`);
    });
    // The app's pages have no icon: the browser's own request for one is no problem.
    page.on('response', (response) => {
      if (response.status() >= 400 && response.url() !== `${box.lookout.base}/favicon.ico`)
        problems.push(`HTTP ${response.status()}: ${response.url()}`);
    });
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(box.slack.url) && !url.startsWith(box.lookout.base) && !url.startsWith('data:'))
        problems.push(`external request: ${url}`);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await box?.stop();
  });

  function accountOf(team: string) {
    const account = box.lookout.accounts.find((a) => a.teamId === team);
    if (!account) throw new Error(`the sandbox made no account for ${team}`);
    return account;
  }

  async function openWorkspace(team: string) {
    await page.goto(`${box.slack.url}/?team=${team}`);
    await expect.poll(() => page.getByTestId('connection-status').getAttribute('data-state')).toBe('live');
  }

  /** The demo API's sources for the workspace's account, asked with its key, over the dates given. */
  async function sourcesOf(team: string, dates: { start_date: string; end_date: string }): Promise<Figure[]> {
    const { baseUrl, apiKey } = accountOf(team);
    const url = new URL(`${baseUrl}/traffic/sources`);
    url.search = new URLSearchParams(dates).toString();
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ pagination: { current_page: 1, limit: 1000 } }),
    });
    expect(res.status).toBe(200);
    const rows = (await res.json()) as Array<{ name: string; total_visits: number }>;
    return rows.map((r) => [r.name, r.total_visits]);
  }

  it('offers Add to Slack in both workspaces, and nothing else, before anyone installs', async () => {
    for (const { team } of WORKSPACES) {
      await openWorkspace(team);
      expect(await page.getByTestId('remove-app').textContent()).toBe('Not installed');
      expect(await page.getByTestId('add-to-slack').isVisible()).toBe(true);
      expect(box.slack.oauth.installed(team)).toBe(false);
    }
    expect(problems).toEqual([]);
  });

  it.each(WORKSPACES)(
    'installs into $name through the browser: install page, authorise screen, Allow, back',
    async ({ team, name }) => {
      await openWorkspace(team);
      await page.getByTestId('add-to-slack').click();
      await page.waitForURL(`${box.lookout.base}/slack/install`);
      await page.locator('#add-to-slack').click();
      await page.waitForURL((url) => url.href.startsWith(`${box.slack.url}/oauth/v2/authorize`));
      expect(await page.locator('h1').textContent()).toContain(
        `Lookout is requesting permission to access the ${name} Slack workspace`,
      );
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((url) => url.href.startsWith(`${box.lookout.base}/slack/oauth_redirect`));
      expect(await page.locator('h1').textContent()).toBe(`Lookout is installed in ${name}`);
      expect(box.slack.oauth.installed(team)).toBe(true);
      // Back to the workspace it installed into, as Slack's own flow returns to the app: its Home open.
      await page.getByRole('link', { name: `Open Lookout in ${name}` }).click();
      await page.waitForURL((url) => url.origin === box.slack.url && url.pathname === '/');
      await expect.poll(() => page.locator('#workspace-name').textContent()).toBe(name);
      await page.getByTestId('home').waitFor();
      expect(await page.locator('#channel-title').textContent()).toBe('Lookout');

      await openWorkspace(team);
      expect(await page.getByTestId('add-to-slack').isHidden()).toBe(true);
      expect(await page.getByTestId('remove-app').textContent()).toBe('Remove app');
      expect(problems).toEqual([]);
    },
  );

  it.each(WORKSPACES)('connects $name from the Home to the demo account its page shows', async ({ team, slowApi }) => {
    const account = accountOf(team);
    await openWorkspace(team);
    const note = page.getByTestId('demo-account');
    expect(await note.isVisible()).toBe(true);
    const baseUrl = (await note.getByTestId('demo-account-url').textContent()) ?? '';
    const apiKey = (await note.getByTestId('demo-account-key').textContent()) ?? '';
    expect({ baseUrl, apiKey }).toEqual({ baseUrl: account.baseUrl, apiKey: account.apiKey });

    await page.getByTestId('app-home').click();
    const home = page.getByTestId('home');
    await home.getByRole('button', { name: 'Connect your analytics' }).click();
    const modal = page.getByTestId('modal').last();
    await modal.waitFor();
    await modal.getByTestId('input-url').locator('input').fill(baseUrl);
    await modal.getByTestId('input-key').locator('input').fill(apiKey);
    if (slowApi) box.demo!.setFaults({ latencyMs: ANSWER_WITHIN_MS + 1_000 });
    try {
      await modal.getByTestId('modal-submit').click();
      // A key tried within 2 s closes the form; on a slower API (on purpose, or a busy machine)
      // the form says it is trying the key, then shows the outcome, and is closed with its Done.
      const settled = async () => {
        const open = await page.getByTestId('modal').allTextContents();
        if (open.length === 0) return 'closed';
        return open.some((text) => text.includes('Lookout answers from this account now'))
          ? 'connected'
          : open.join(' | ');
      };
      await expect.poll(settled, { timeout: 60_000 }).toMatch(slowApi ? /^connected$/ : /^(closed|connected)$/);
      if ((await settled()) === 'connected') await page.getByTestId('modal').last().getByTestId('modal-cancel').click();
    } finally {
      box.demo!.setFaults({});
    }
    await expect.poll(() => page.getByTestId('modal').count()).toBe(0);
    await expect.poll(() => home.textContent(), { timeout: 60_000 }).toContain(`…${apiKey.slice(-4)}`);
    expect(await home.textContent()).not.toContain(apiKey);
    expect(problems).toEqual([]);
  });

  it.each(WORKSPACES)(
    'runs /traffic sources last7d in $name, answered from its own account',
    async ({ team, account }) => {
      await openWorkspace(team);
      expect(await page.locator('#channel-title').textContent()).toBe('# general');
      box.demo!.resetRequests();
      const list = page.getByTestId('message-list');
      const before = await list.getByTestId('block-data-table').count();
      await page.getByTestId('composer-input').fill('/traffic sources last7d');
      await page.getByTestId('composer-send').click();
      await expect.poll(() => list.getByTestId('block-data-table').count()).toBeGreaterThan(before);
      const report = list
        .getByTestId('message')
        .filter({ has: page.getByTestId('block-data-table') })
        .last();
      const header = await report.locator('.bk-table tr').first().locator('th').allTextContents();
      expect(header).toEqual(expect.arrayContaining(['Name', 'Visits']));
      const [nameAt, visitsAt] = [header.indexOf('Name'), header.indexOf('Visits')];
      const shown = await report
        .locator('.bk-table tr')
        .evaluateAll(
          (rows, at) => rows.slice(1).map((r) => at.map((i) => r.children[i]?.textContent ?? '')),
          [nameAt, visitsAt],
        );
      const asked = box.demo!.requests.filter((r) => r.path === '/traffic/sources');
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.map((r) => r.account)).toEqual(asked.map(() => account));
      const { start_date, end_date } = asked[0]!.query;
      reports.set(team, {
        shown: shown.map(([name, visits]) => [name ?? '', Number((visits ?? '').replace(/\D/g, ''))]),
        dates: { start_date: start_date ?? '', end_date: end_date ?? '' },
      });
      expect(problems).toEqual([]);
    },
  );

  it("each workspace sees only its own account's sources, as the demo API gives them to its key", async () => {
    for (const { team } of WORKSPACES) {
      const { shown, dates } = reports.get(team)!;
      const other = WORKSPACES.find((w) => w.team !== team)!.team;
      const own = new Map(await sourcesOf(team, dates));
      const others = new Map(await sourcesOf(other, dates));
      // The report's first page is the account's top sources, each with the account's own figure.
      expect(shown.length).toBe(Math.min(10, own.size));
      expect(shown.map(([name]) => [name, own.get(name)])).toEqual(shown);
      const least = Math.min(...shown.map(([, visits]) => visits));
      expect([...own].filter(([name, visits]) => visits > least && !shown.some(([n]) => n === name))).toEqual([]);
      // Both sites have the same sources, and now and then one has the same figure by chance; never all of them.
      expect(shown.filter(([name, visits]) => others.get(name) !== visits)).not.toEqual([]);
    }
    const [one, two] = WORKSPACES.map(({ team }) => reports.get(team)!.shown);
    expect(one).not.toEqual(two);
  });
});
