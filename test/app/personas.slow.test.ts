/**
 * Three people's first minutes in the sandbox, in a real browser (Debian's chromium through
 * playwright-core): a marketer pages, filters, drills and shares a report; a security
 * engineer turns alerts on, sees one arrive live, opens its details, acknowledges and mutes
 * it; a team lead adds three digests and pauses and previews the third from the list.
 * A screenshot of each step goes to test-results/screens/ (outside the tracked tree).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/log.js';
import { DEMO_VISITORS } from '@lookout/sandbox/demo-api';
import { startTestSandbox as startSandbox, type Sandbox } from '../support/sandbox.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
const SCREENS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-results', 'screens');

describe.skipIf(!available)('three people in the sandbox, in a browser', () => {
  let box: Sandbox;
  let browser: Browser;
  const problems: string[] = [];

  beforeAll(async () => {
    box = await startSandbox({ log: createLogger({ level: 'silent' }), scheduler: false });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    await mkdir(SCREENS, { recursive: true });
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await box?.stop();
  });

  async function open(user: string, channel: string): Promise<Page> {
    const page = await browser.newPage({
      viewport: { width: 1320, height: 900 },
      locale: 'en-US',
      timezoneId: 'Europe/Berlin',
    });
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(`${box.slack.url}/?user=${user}&channel=${channel}`);
    await expect.poll(() => page.getByTestId('connection-status').getAttribute('data-state')).toBe('live');
    return page;
  }

  async function type(page: Page, text: string): Promise<void> {
    await page.getByTestId('composer-input').fill(text);
    await page.getByTestId('composer-send').click();
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENS, `${name}.png`) });
  /** The newest message holding `has`, pinned by its ts (a locator is lazy: later messages would match it too). */
  async function lastMessage(page: Page, has: Locator): Promise<Locator> {
    const found = page.getByTestId('message-list').getByTestId('message').filter({ has }).last();
    await found.waitFor();
    return page.getByTestId('message-list').locator(`[data-ts="${await found.getAttribute('data-ts')}"]`);
  }

  it('a marketer pages, filters, drills into and shares a report', async () => {
    const page = await open('alice', 'marketing');
    await type(page, '/traffic sources last7d');
    const report = await lastMessage(page, page.getByTestId('block-data-table'));
    await shot(page, 'marketer-1-report');

    await report.getByRole('button', { name: 'Next ▶' }).click();
    await expect.poll(() => report.locator('.context').first().textContent()).toMatch(/^Rows 11–/);
    await shot(page, 'marketer-2-page-2');

    await report.getByRole('button', { name: 'Filter…' }).click();
    const modal = page.getByTestId('modal');
    await modal.getByLabel('Add a filter on').selectOption('country.name');
    await modal.getByLabel('Values').fill('Germany');
    await page.getByTestId('modal-submit').click();
    await modal.waitFor({ state: 'detached' });
    await expect.poll(() => report.locator('.context').first().textContent()).toMatch(/country is Germany/);
    await shot(page, 'marketer-3-filtered');

    await report.getByRole('button', { name: 'Drill down' }).click();
    await modal.getByLabel('Which source').waitFor();
    const row = (await modal.getByLabel('Which source').locator('option').allTextContents()).find(
      (t) => t.trim() && !/choose|select/i.test(t),
    )!;
    await modal.getByLabel('Which source').selectOption({ label: row });
    await page.getByTestId('modal-submit').click();
    await modal.waitFor({ state: 'detached' });
    await expect
      .poll(() => report.locator('.context').first().textContent())
      .toMatch(new RegExp(`source is ${row.trim()}`));
    await shot(page, 'marketer-4-drilled');

    await report.getByRole('button', { name: 'Post to channel' }).click();
    const shared = page
      .getByTestId('message-list')
      .getByTestId('message')
      .filter({ has: page.getByTestId('block-data-table') })
      .filter({ hasNot: page.getByTestId('ephemeral-note') })
      .last();
    await shared.waitFor();
    expect(await shared.locator('.context').first().textContent()).toMatch(new RegExp(`source is ${row.trim()}`));
    await shot(page, 'marketer-5-shared');

    // Trend on the shared report: the chart, for the marketer alone.
    await shared.getByRole('button', { name: 'Trend' }).click();
    const trend = page
      .getByTestId('message-list')
      .getByTestId('message')
      .filter({ has: page.locator('.block.chart[data-chart-type="line"]') })
      .last();
    await trend.waitFor();
    expect(await trend.getByTestId('ephemeral-note').count()).toBe(1);
    expect(await trend.locator('.block.section').first().textContent()).toMatch(/visits/);
    await shot(page, 'marketer-6-trend');

    // A pages trend: its pie's labels are the table's paths, each told apart, with separators.
    await type(page, '/traffic trend pages last7d');
    const pagesTrend = await lastMessage(page, page.locator('.block.chart[data-chart-type="pie"]'));
    const pieFigures = (await pagesTrend.locator('.block.chart[data-chart-type="pie"] .chart-figures').textContent())!;
    const slices = pieFigures
      .split(' · ')
      .map((f) => /^(.*): ([\d,]+)$/.exec(f)!)
      .map((m) => ({ label: m[1]!, value: m[2]! }));
    const labels = slices.map((s) => s.label).filter((l) => l !== 'Other');
    expect(new Set(labels).size).toBe(labels.length);
    for (const label of labels) expect(label).toMatch(/^\//);
    await shot(page, 'marketer-7-pages-trend');
    await pagesTrend.getByRole('button', { name: 'Show table' }).click();
    await expect.poll(() => pagesTrend.getByTestId('block-data-table').count()).toBe(1);
    const firstColumn = await pagesTrend
      .getByTestId('block-data-table')
      .locator('tr > td:first-child')
      .allTextContents();
    // A label is the table's path, or (Slack allows 20 characters) that path cut at its end or in its middle.
    const shows = (label: string, path: string) => {
      const [head, tail = ''] = label.split('…');
      return (
        label === path ||
        (label.includes('…') && Array.from(label).length <= 20 && path.startsWith(head!) && path.endsWith(tail))
      );
    };
    const paths = firstColumn.slice(0, labels.length).map((t) => t.trim());
    expect(
      labels.map((label, i) => ({ label, path: paths[i] })).filter(({ label, path }) => !shows(label, path ?? '')),
    ).toEqual([]);
    await shot(page, 'marketer-8-pages-table');

    // Today by hour: no point for an hour that has not begun (the channel's zone is UTC here).
    const hourBefore = new Date().getUTCHours();
    await type(page, '/traffic trend today');
    const today = await lastMessage(
      page,
      page.locator('.block.chart[data-chart-type="line"]').filter({ hasText: 'per hour' }),
    );
    const hourAfter = new Date().getUTCHours();
    const thisPeriod = (await today.locator('.block.chart .chart-figures').textContent())!.split(' · ')[0]!;
    // The series is named by its date ("Nov 27, 2026: 1, 2, …").
    const points = thisPeriod.replace(/^[A-Z][a-z]{2} \d{1,2}, \d{4}: /, '').split(', ').length;
    expect([hourBefore + 1, hourAfter + 1]).toContain(points);
    await shot(page, 'marketer-9-today-by-hour');

    // Help names every sub-command.
    await type(page, '/traffic help');
    const help = await lastMessage(page, page.getByText('/traffic trend', { exact: false }));
    for (const word of ['trend', 'watch', 'digest', 'alerts', '/visitor'])
      expect(await help.textContent()).toContain(word);
    await shot(page, 'marketer-10-help');
    expect(problems).toEqual([]);
  }, 90_000);

  it('a security engineer turns alerts on, sees one arrive live, opens it, acknowledges and mutes it', async () => {
    const page = await open('carol', 'security');
    // Enter sends a command typed whole, as Slack does (it used to complete the suggestion and stop).
    await page.getByTestId('composer-input').fill('/visitor');
    await page.getByTestId('composer-input').press('Enter');
    await expect.poll(() => page.getByTestId('message-list').textContent()).toMatch(/Usage: \/visitor/);
    await type(page, '/traffic alerts on min medium');
    await expect.poll(() => page.getByTestId('message-list').textContent()).toMatch(/Threat alerts are on/);
    // The channel it reports in, as a channel link.
    const on = await lastMessage(page, page.getByText('Threat alerts are on', { exact: false }));
    expect(await on.locator('.channel-mention').first().textContent()).toBe('#security');
    await box.lookout.store.scanState.saveProgress((await box.lookout.features.threats.scan.stateKeys())[0]!, {
      watermark: new Date(),
      seenIds: [],
      counts: {},
      at: new Date(),
    });

    box.demo!.dataset.addVisit({
      visitor_id: DEMO_VISITORS.attacker,
      date: new Date(Date.now() + 1000),
      url: 'https://www.example-shop.com/login',
    });
    await new Promise((r) => setTimeout(r, 1100));
    await box.lookout.features.threats.scan.scan();
    await page
      .getByTestId('message-list')
      .getByTestId('message')
      .filter({ hasText: `visitor ${DEMO_VISITORS.attacker}` })
      .filter({ has: page.getByRole('button', { name: 'Acknowledge' }) })
      .last()
      .waitFor({ timeout: 15_000 });
    const alert = await lastMessage(page, page.getByRole('button', { name: 'Acknowledge' }));
    // The severity is the colour of the message's bar (red), not only words; no alert block in a message.
    expect(
      await alert
        .locator('.attachment')
        .first()
        .evaluate((n) => n.ownerDocument.defaultView!.getComputedStyle(n).borderLeftColor),
    ).toBe('rgb(224, 30, 90)');
    expect(await alert.locator('.block.alert').count()).toBe(0);
    await shot(page, 'security-1-alert-arrived');

    await alert.getByRole('button', { name: 'Details' }).click();
    const card = page
      .getByTestId('message-list')
      .getByTestId('message')
      .filter({ has: page.getByTestId('ephemeral-note') })
      .filter({ hasText: 'Recent visits' })
      .last();
    await card.waitFor();
    expect(await card.textContent()).toMatch(/Threat/);
    const colour = await card
      .locator('.attachment')
      .first()
      .evaluate((n) => n.ownerDocument.defaultView!.getComputedStyle(n).borderLeftColor);
    expect(colour).toBe('rgb(224, 30, 90)');
    await shot(page, 'security-2-details');

    await alert.getByRole('button', { name: 'Acknowledge' }).click();
    await expect.poll(() => alert.textContent()).toMatch(/Acknowledged by/);
    await alert.getByRole('button', { name: 'Mute 24h' }).click();
    await expect.poll(() => alert.textContent()).toMatch(/Muted until/);
    expect(await alert.getByRole('button', { name: 'Unmute' }).count()).toBe(1);
    await shot(page, 'security-3-acknowledged-and-muted');
    expect(problems).toEqual([]);
  }, 60_000);

  it('a team lead adds three digests, then pauses and previews the third from the list: only the third changes', async () => {
    const page = await open('bob', 'general');
    // A digest made for another channel from here is confirmed here, the channel as a link.
    await type(page, '/traffic digest add #marketing daily 09:00 UTC cities');
    await expect.poll(() => page.getByTestId('message-list').textContent()).toMatch(/#marketing/);
    const made = await lastMessage(page, page.locator('.channel-mention', { hasText: '#marketing' }));
    expect(await made.textContent()).toMatch(/just added[^]*Cities/i);
    await shot(page, 'lead-0-for-marketing');
    for (const report of ['sources', 'pages', 'countries']) {
      await type(page, `/traffic digest add daily 09:00 UTC ${report}`);
      await expect
        .poll(
          async () =>
            (await box.lookout.store.digests.listAll('T_LOOKOUT')).filter((d) =>
              d.reports.includes(report as 'sources'),
            ).length,
        )
        .toBe(1);
    }
    const here = async () =>
      (await box.lookout.store.digests.listAll('T_LOOKOUT')).filter((d) => d.channelId === 'C_GENERAL');
    const ids = (await here()).map((d) => d.id);
    await type(page, '/traffic digest list');
    await expect.poll(() => page.getByTestId('message-list').getByText('Digests in this channel').count()).toBe(1);
    const list = await lastMessage(page, page.getByRole('button', { name: 'Preview now' }));
    await shot(page, 'lead-1-list');

    await list.getByRole('button', { name: 'Pause' }).nth(2).click();
    await expect
      .poll(async () => (await here()).map((d) => [d.id, d.paused]))
      .toEqual([
        [ids[0], false],
        [ids[1], false],
        [ids[2], true],
      ]);
    await shot(page, 'lead-2-third-paused');

    await list.getByRole('button', { name: 'Preview now' }).nth(2).click();
    const preview = page
      .getByTestId('message-list')
      .getByTestId('message')
      .filter({ hasText: `digest #${ids[2]}` })
      .filter({ hasText: 'preview' })
      .last();
    await preview.waitFor();
    expect(await preview.textContent()).toMatch(/Countries/);
    expect(await preview.textContent()).not.toMatch(/Sources|Pages/);
    // After the security engineer's alerts: yesterday ended before the threat scan began, so nothing of it was checked, and no count is claimed.
    expect(await preview.textContent()).toMatch(
      /The threat scan began .*, after this period: its visitors were not checked\./,
    );
    expect(await preview.textContent()).not.toMatch(/\d+ flagged visitors?|no flagged visitors/);
    await shot(page, 'lead-3-third-previewed');
    expect(problems).toEqual([]);
  }, 60_000);
});
