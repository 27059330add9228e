/**
 * The sandbox as `npm start` runs it (src/sandboxed.ts), in a real browser (Debian's chromium
 * through playwright-core): workspace one is installed and connected from the start; Other Co
 * adds Lookout from its page (the app's install page, the authorise screen, Allow, the
 * redirect back), connects its own demo account from the Home, and each workspace's
 * `/traffic pages last7d` shows only its own account's pages. No screenshots.
 * Skips, saying why, when chromium is not installed (`apt-get install chromium`).
 */
import { existsSync } from 'node:fs';
import { startSandbox, type Sandbox } from '@lookout/sandbox';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/log.js';
import { installWorkspaceOne, startSandboxed, type SandboxedLookout } from '../../src/sandboxed.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);

if (!available) {
  console.warn(
    `[test/browser] skipped: no chromium at ${CHROMIUM} (install it with "apt-get install -y chromium", or set CHROMIUM_PATH)`,
  );
}

describe.skipIf(!available)('the distributed sandbox in a browser', () => {
  let box: Sandbox<SandboxedLookout>;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    const log = createLogger({ level: 'silent' });
    box = await startSandbox({
      log,
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
    await installWorkspaceOne(box);
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

  async function openWorkspace(team: string) {
    await page.goto(`${box.slack.url}/?team=${team}`);
    await expect.poll(() => page.getByTestId('connection-status').getAttribute('data-state')).toBe('live');
  }

  async function openChannel(name: string) {
    await page.locator(`[data-testid="channel-item"][data-channel-name="${name}"]`).click();
    await expect.poll(() => page.locator('#channel-title').textContent()).toBe(`# ${name}`);
  }

  /** Runs a command in the open channel; the report's table, page by page as shown (its first column). */
  async function pagesReport(): Promise<string[]> {
    const list = page.getByTestId('message-list');
    const before = await list.getByTestId('block-data-table').count();
    await page.getByTestId('composer-input').fill('/traffic pages last7d');
    await page.getByTestId('composer-send').click();
    await expect.poll(() => list.getByTestId('block-data-table').count()).toBeGreaterThan(before);
    const table = list.getByTestId('block-data-table').last();
    return table.locator('tr').evaluateAll((rows) => rows.slice(1).map((r) => r.children[0]?.textContent ?? ''));
  }

  it('workspace one answers from the start; Other Co offers Add to Slack and nothing else', async () => {
    await openWorkspace('T_LOOKOUT');
    expect(await page.getByTestId('add-to-slack').isHidden()).toBe(true);
    expect(await page.getByTestId('remove-app').textContent()).toBe('Remove app');
    await openWorkspace('T_OTHER');
    expect(await page.getByTestId('remove-app').textContent()).toBe('Not installed');
    expect(await page.getByTestId('add-to-slack').isVisible()).toBe(true);
    expect(box.slack.oauth.installed('T_OTHER')).toBe(false);
    expect(problems).toEqual([]);
  });

  it('installs into Other Co through the browser: install page, authorise screen, Allow, back', async () => {
    await openWorkspace('T_OTHER');
    await page.getByTestId('add-to-slack').click();
    await page.waitForURL(`${box.lookout.base}/slack/install`);
    await page.locator('#add-to-slack').click();
    await page.waitForURL((url) => url.href.startsWith(`${box.slack.url}/oauth/v2/authorize`));
    expect(await page.locator('h1').textContent()).toMatch(
      /Lookout is requesting permission to access the Other Co Slack workspace/,
    );
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${box.lookout.base}/slack/oauth_redirect`));
    expect(await page.locator('h1').textContent()).toBe('Lookout is installed in Other Co');
    expect(box.slack.oauth.installed('T_OTHER')).toBe(true);

    await openWorkspace('T_OTHER');
    expect(await page.getByTestId('add-to-slack').isHidden()).toBe(true);
    expect(await page.getByTestId('remove-app').textContent()).toBe('Remove app');
    expect(problems).toEqual([]);
  });

  it("connects Other Co to its own account from the Home, and each workspace sees only its own account's pages", async () => {
    const two = box.lookout.accounts.find((a) => a.teamId === 'T_OTHER')!;
    await openWorkspace('T_OTHER');
    await page.getByTestId('app-home').click();
    const home = page.getByTestId('home');
    await home.getByRole('button', { name: 'Connect your analytics' }).click();
    const modal = page.getByTestId('modal').last();
    await modal.waitFor();
    await modal.getByTestId('input-url').locator('input').fill(two.baseUrl);
    await modal.getByTestId('input-key').locator('input').fill(two.apiKey);
    await modal.getByTestId('modal-submit').click();
    await expect.poll(() => page.getByTestId('modal').count()).toBe(0);
    await expect.poll(() => home.textContent(), { timeout: 60_000 }).toContain(`…${two.apiKey.slice(-4)}`);
    expect(await home.textContent()).not.toContain(two.apiKey);

    await openWorkspace('T_OTHER');
    expect(await page.locator('#channel-title').textContent()).toBe('# general');
    const theirs = await pagesReport();
    await openWorkspace('T_LOOKOUT');
    await openChannel('marketing');
    const ours = await pagesReport();

    expect(theirs).toContain('/plans');
    expect(ours).not.toContain('/plans');
    expect(ours.length).toBeGreaterThan(0);
    expect(theirs.filter((p) => ours.includes(p) && p !== '/')).toEqual([]);
    expect(problems).toEqual([]);
  });
});
