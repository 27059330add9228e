/**
 * The sandbox's Slack page in a real browser (Debian's chromium through playwright-core):
 * run a report, page it, filter it in the modal, and keep a screenshot for the README.
 * Skips, saying why, when chromium is not installed (`apt-get install chromium`).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/log.js';
import { startTestSandbox as startSandbox, type Sandbox } from '../support/sandbox.js';
import { until } from '../support/until.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
// Outside the tracked tree (docs/screenshot.png is the README's, updated by hand).
const SCREENSHOT = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'test-results',
  'screens',
  'workspace-report.png',
);

if (!available) {
  console.warn(
    `[browser] skipped: no chromium at ${CHROMIUM} (install it with "apt-get install -y chromium", or set CHROMIUM_PATH)`,
  );
}

describe.skipIf(!available)('the sandbox Slack in a browser', () => {
  let box: Sandbox;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    box = await startSandbox({
      log: createLogger({ level: 'silent' }),
      scheduler: false,
      // A watch is judged as soon as its period is final, whatever the hour the tests run at.
      settings: { WATCH_SPREAD_HOURLY: 0, WATCH_SPREAD_DAILY: 0 },
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
    page = await browser.newPage({
      viewport: { width: 1320, height: 900 },
      locale: 'en-US',
      timezoneId: 'Europe/Berlin',
    });
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
    });
    page.on('request', (request) => {
      if (!request.url().startsWith(box.slack.url) && !request.url().startsWith('data:'))
        problems.push(`external request: ${request.url()}`);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await box?.stop();
  });

  /** Posts blocks as the app would, through the offline Slack's Web API (which validates them). */
  async function postAsBot(channel: string, blocks: unknown[]): Promise<void> {
    const res = await fetch(`${box.slack.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${box.secrets.botToken}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel, text: 'blocks', blocks }),
    });
    expect(((await res.json()) as { ok: boolean; error?: string }).ok).toBe(true);
  }

  it('runs /traffic, pages it, filters it in the modal, and takes a screenshot', async () => {
    await page.goto(`${box.slack.url}/`);
    await expect.poll(() => page.getByTestId('connection-status').getAttribute('data-state')).toBe('live');

    await openChannel('marketing');

    const input = page.getByTestId('composer-input');
    await input.fill('/tr');
    await expect.poll(() => page.getByTestId('suggestion').first().textContent()).toMatch(/^\/traffic/);
    await input.fill('/traffic sources last7d');
    await page.getByTestId('composer-send').click();

    const list = page.getByTestId('message-list');
    const report = list
      .getByTestId('message')
      .filter({ has: page.getByTestId('block-data-table') })
      .last();
    await report.getByTestId('block-data-table').waitFor();
    await expect.poll(() => report.getByTestId('ephemeral-note').textContent()).toMatch(/Only visible to you/);
    const header = await report.locator('.bk-table tr').first().locator('th').allTextContents();
    expect(header.slice(0, 2)).toEqual(['Name', 'Visits']);
    const firstName = await report.locator('.bk-table tr').nth(1).locator('td').first().textContent();
    const visitsAlign = await report
      .locator('.bk-table tr')
      .nth(1)
      .locator('td')
      .nth(1)
      .evaluate((td) => td.ownerDocument.defaultView!.getComputedStyle(td).textAlign);
    expect(visitsAlign).toBe('right');
    await expect.poll(() => report.locator('.context').first().textContent()).toMatch(/^Rows 1–10/);

    await report.getByRole('button', { name: 'Next ▶' }).click();
    await expect.poll(() => report.locator('.context').first().textContent()).toMatch(/^Rows 11–/);
    expect(await report.locator('.bk-table tr').nth(1).locator('td').first().textContent()).not.toBe(firstName);

    await report.getByRole('button', { name: 'Filter…' }).click();
    const modal = page.getByTestId('modal');
    await modal.waitFor();
    await expect.poll(() => modal.locator('.modal-title').textContent()).toBe('Filter Sources');
    await modal.getByLabel('Add a filter on').selectOption('country.name');
    await modal.getByLabel('Values').fill('Germany');
    await page.getByTestId('modal-submit').click();
    await modal.waitFor({ state: 'detached' });

    await expect.poll(() => report.locator('.context').first().textContent()).toMatch(/country is Germany/);
    await expect.poll(() => report.locator('.context code').first().textContent()).toBe('Germany');
    expect(await report.getByTestId('block-data-table').isVisible()).toBe(true);

    await mkdir(dirname(SCREENSHOT), { recursive: true });
    await page.mouse.move(0, 0);
    await page.screenshot({ path: SCREENSHOT });
    expect(existsSync(SCREENSHOT)).toBe(true);
    expect(problems).toEqual([]);
  });

  it('shows what others post live, as text: never as markup, and opens its thread', async () => {
    let dialogs = 0;
    page.on('dialog', (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    const hostile =
      'see &lt;img src=x onerror=alert(1)&gt; *bold* &amp; <https://example.com/a?b=1&amp;c=2|the &lt;log&gt;> <javascript:alert(1)|click>';
    const parent = box.slack.say('C_GENERAL', 'U_BOB', hostile);
    const general = page.locator('[data-testid="channel-item"][data-channel-name="general"]');
    await expect.poll(() => general.locator('.badge').textContent()).toBe('1');
    box.slack.say('C_GENERAL', 'U_CAROL', 'a reply in the thread', parent.ts);

    await general.click();
    const message = page.getByTestId('message-list').locator(`[data-ts="${parent.ts}"]`);
    await message.waitFor();
    const body = message.locator('.message-body');
    expect(await body.textContent()).toBe('see <img src=x onerror=alert(1)> bold & the <log> click');
    expect(await body.locator('img').count()).toBe(0);
    expect(await body.locator('strong').textContent()).toBe('bold');
    expect(await body.locator('a').count()).toBe(1);
    expect(await body.locator('a').getAttribute('href')).toBe('https://example.com/a?b=1&c=2');

    await message.getByTestId('thread-link').click();
    const thread = page.getByTestId('thread-panel');
    await thread.waitFor();
    await expect
      .poll(() => thread.getByTestId('message').last().locator('.message-body').textContent())
      .toBe('a reply in the thread');
    await page.getByTestId('thread-input').fill('thanks!');
    await page.getByTestId('thread-input').press('Enter');
    await expect.poll(() => box.slack.thread('C_GENERAL', parent.ts).map((m) => m.text)).toContain('thanks!');
    await expect.poll(() => message.getByTestId('thread-link').textContent()).toMatch(/2 replies/);
    expect(dialogs).toBe(0);
    expect(problems).toEqual([]);
  });

  it("shows the threat alert, the visitor card and the watch alert in their level's colour, from a message attachment's bar, with no alert block in any message; screenshots", async () => {
    const bar = (message: import('playwright-core').Locator) =>
      message
        .locator('.attachment')
        .first()
        .evaluate((n) => n.ownerDocument.defaultView!.getComputedStyle(n).borderLeftColor);
    const shot = async (message: import('playwright-core').Locator, name: string) => {
      await message.scrollIntoViewIfNeeded();
      await page.mouse.move(0, 0);
      await page.screenshot({ path: join(dirname(SCREENSHOT), name) });
    };
    await openChannel('security');

    // The visitor card of an attacker: red.
    const card = await command('/visitor v_demo_attacker', '.attachment');
    expect(await bar(card)).toBe('rgb(224, 30, 90)');
    expect(await card.textContent()).toMatch(/Why[\s\S]*flagged as attacker/);
    await shot(card, 'colour-visitor-card.png');

    // A threat alert for an attacker coming back: red, by severity.
    await command('/traffic alerts on', '.block');
    box.demo!.dataset.addVisit({
      visitor_id: 'v_demo_attacker',
      date: new Date().toISOString(),
      url: 'https://www.example-shop.com/checkout',
    });
    await box.lookout.features.threats.scan.scan();
    box.lookout.deliveries.wake();
    const list = page.getByTestId('message-list');
    const alert = list.getByTestId('message').filter({ hasText: 'Acknowledge' }).last();
    await alert.locator('.attachment').waitFor();
    expect(await bar(alert)).toBe('rgb(224, 30, 90)');
    await shot(alert, 'colour-threat-alert.png');

    // A watch alert: amber while breaching, its chart above the bar.
    await openChannel('marketing');
    await command('/traffic watch visits above 0 every day', '.block');
    await box.lookout.features.watches.evaluator.tick();
    box.lookout.deliveries.wake();
    // Read once its explanation is in: the alert is edited in place when it comes.
    const watch = list
      .getByTestId('message')
      .filter({ hasText: 'Watch: visits above 0' })
      .filter({ hasText: 'What moved' })
      .last();
    await watch.locator('.attachment').waitFor();
    expect(await bar(watch)).toBe('rgb(236, 178, 46)');
    await shot(watch, 'colour-watch-alert.png');

    for (const channel of ['C_SECURITY', 'C_MARKETING']) {
      for (const m of box.slack.messages(channel, { user: 'U_ALICE' }))
        expect(JSON.stringify(m)).not.toContain('"type":"alert"');
    }
    expect(problems).toEqual([]);
  }, 60_000);

  it('draws a data_visualization block with Chart.js served locally, and states its figures in text', async () => {
    const days = ['Nov 17', 'Nov 18', 'Nov 19', 'Nov 20'];
    const series = (name: string, base: number) => ({
      name,
      data: days.map((label, i) => ({ label, value: base + i * 7 })),
    });
    await postAsBot('C_GENERAL', [
      {
        type: 'data_visualization',
        title: 'Visits, this week and last',
        chart: {
          type: 'line',
          series: [series('This week', 40), series('Last week', 30)],
          axis_config: { categories: days, x_label: 'Day', y_label: 'Visits' },
        },
      },
      {
        type: 'data_visualization',
        title: 'Share of visits',
        chart: {
          type: 'pie',
          segments: [
            { label: 'google', value: 53 },
            { label: 'direct', value: 43 },
          ],
        },
      },
    ]);
    await openChannel('general');
    const line = page.locator('.block.chart[data-chart-type="line"]').last();
    await line.waitFor();
    expect(await line.locator('.chart-figures').textContent()).toBe(
      'This week: 40, 47, 54, 61 · Last week: 30, 37, 44, 51',
    );
    // The canvas has been drawn on: some of its pixels are not blank.
    await expect
      .poll(() =>
        line.locator('canvas').evaluate((c) => {
          const canvas = c as unknown as {
            width: number;
            height: number;
            getContext(kind: '2d'): {
              getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
            };
          };
          const d = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
          let inked = 0;
          for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) inked++;
          return inked;
        }),
      )
      .toBeGreaterThan(500);
    expect(await page.locator('.block.chart[data-chart-type="pie"] .chart-figures').last().textContent()).toBe(
      'google: 53 · direct: 43',
    );
    await mkdir(dirname(SCREENSHOT), { recursive: true });
    await line.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(dirname(SCREENSHOT), 'workspace-charts.png') });
    expect(problems).toEqual([]);
  });

  /** Types a command in the current channel and returns the newest message holding `testid`. */
  /** Opens a channel, and waits until the list shows it (a command counts its messages). */
  async function openChannel(name: string) {
    await page.locator(`[data-testid="channel-item"][data-channel-name="${name}"]`).click();
    await expect.poll(() => page.locator('#channel-title').textContent()).toBe(`# ${name}`);
    // The title changes first; the list still holds the channel before until it is drawn again.
    await expect
      .poll(() => page.getByTestId('message-list').textContent())
      .toContain(`This is the very beginning of the #${name} channel`);
  }

  /** Sends a command and returns its answer: the newest message after it that holds `testid` (a progress note first holds none). */
  async function command(text: string, testid: string) {
    const messages = page.getByTestId('message-list').getByTestId('message');
    const before = await messages.count();
    await page.getByTestId('composer-input').fill(text);
    await page.getByTestId('composer-send').click();
    let answer: number | undefined;
    await expect
      .poll(async () => {
        for (let i = (await messages.count()) - 1; i >= before; i--)
          if ((await messages.nth(i).locator(testid).count()) > 0) return (answer = i);
        return undefined;
      })
      .toBeDefined();
    return messages.nth(answer!);
  }

  const inked = (canvas: import('playwright-core').Locator) =>
    canvas.evaluate((c) => {
      const el = c as unknown as {
        width: number;
        height: number;
        getContext(kind: '2d'): {
          getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
        };
      };
      const d = el.getContext('2d').getImageData(0, 0, el.width, el.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) n++;
      return n;
    });

  it('/traffic trend draws this period against the previous one and a pie, with the figures in words; screenshot', async () => {
    await openChannel('marketing');
    const trend = await command('/traffic trend sources last30d', '.block.chart[data-chart-type="line"]');
    const line = trend.locator('.block.chart[data-chart-type="line"]');
    await expect.poll(() => inked(line.locator('canvas'))).toBeGreaterThan(500);
    expect(await line.locator('.chart-figures').textContent()).toMatch(
      // Each series by its dates ("Nov 21–27, 2026: …"), so the previous period says which it is.
      /^[A-Z][a-z]{2} [^:·]+\d{4}: [\d, ]+ · [A-Z][a-z]{2} [^:·]+\d{4}: [\d, ]+$/,
    );
    await expect.poll(() => inked(trend.locator('.block.chart[data-chart-type="pie"] canvas'))).toBeGreaterThan(500);
    expect(await trend.locator('.block.section').first().textContent()).toMatch(
      /^[\d,]+ visits, .+ against the previous period/,
    );
    await mkdir(dirname(SCREENSHOT), { recursive: true });
    await line.scrollIntoViewIfNeeded();
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(dirname(SCREENSHOT), 'workspace-trend.png') });
    expect(problems).toEqual([]);
  });

  it('a report answer is a data_table the reader sorts in place: numbers by value, names A→Z; screenshot', async () => {
    await openChannel('marketing');
    const report = await command('/traffic countries last30d top 25', '[data-testid="block-data-table"]');
    const table = report.getByTestId('block-data-table');
    const column = (i: number) =>
      table.locator('tr').evaluateAll((rows, c) => rows.slice(1).map((r) => r.children[c]?.textContent ?? ''), i);
    const numbers = async (i: number) => (await column(i)).map((t) => Number(t.replace(/,/g, '')));
    expect(await column(0)).toHaveLength(25);

    await table.getByTestId('sort-2').click(); // Unique: biggest first
    const unique = await numbers(2);
    expect(unique).toEqual([...unique].sort((a, b) => b - a));
    expect(await table.locator('th').nth(2).getAttribute('aria-sort')).toBe('descending');
    await table.getByTestId('sort-2').click();
    expect(await numbers(2)).toEqual([...unique].sort((a, b) => a - b));
    await table.getByTestId('sort-0').click(); // Name: A→Z
    const names = await column(0);
    expect(names).toEqual([...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase(), 'en')));
    await mkdir(dirname(SCREENSHOT), { recursive: true });
    await table.scrollIntoViewIfNeeded();
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(dirname(SCREENSHOT), 'workspace-data-table.png') });
    expect(problems).toEqual([]);
  });

  it("opens Lookout's Home tab and uses a button: the digest is paused and the Home says so; a digest added elsewhere appears by itself; screenshot", async () => {
    await openChannel('marketing');
    await command('/traffic digest add weekly monday 09:00 sources pages', '.block');
    const [digest] = (await box.lookout.store.digests.listAll('T_LOOKOUT')).filter(
      (d) => d.channelId === 'C_MARKETING',
    );
    await page.getByTestId('app-home').click();
    const home = page.getByTestId('home');
    const about = home.locator(`[data-block-id="digest-${digest!.id}-about"]`);
    await about.waitFor();
    expect(await home.locator('.block.header').first().textContent()).toBe('Lookout');
    await expect.poll(() => about.textContent()).toMatch(/sources, pages in #marketing · Mondays at 09:00/);
    await home.locator(`[data-block-id="digest-${digest!.id}"]`).getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => about.textContent()).toMatch(/paused/);
    expect((await box.lookout.store.digests.get(digest!.id))?.paused).toBe(true);
    // The same person adds a digest from another channel: the open Home shows it without being opened again.
    await box.slack.slash('C_GENERAL', 'U_ALICE', 'digest add daily 07:30 countries');
    const added = await until(
      async () => (await box.lookout.store.digests.listAll('T_LOOKOUT')).find((d) => d.channelId === 'C_GENERAL'),
      'the second digest',
    );
    await expect
      .poll(() => home.locator(`[data-block-id="digest-${added.id}-about"]`).textContent())
      .toMatch(/countries in #general · every day at 07:30/i);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(dirname(SCREENSHOT), 'workspace-home.png') });
    // Back to a channel: its messages and the composer return.
    await openChannel('general');
    expect(await home.isHidden()).toBe(true);
    expect(await page.getByTestId('composer-input').isVisible()).toBe(true);
    // The Home opened from #general, then #general again: the header is the channel's, not the Home's.
    await page.getByTestId('app-home').click();
    await expect.poll(() => page.locator('#channel-title').textContent()).toBe('Lookout');
    expect(await page.locator('#channel-meta').textContent()).toBe('Home');
    await openChannel('general');
    expect(await page.locator('#channel-meta').textContent()).toBe('Lookout is in this channel');
    expect(await home.isHidden()).toBe(true);
    expect(problems).toEqual([]);
  });

  it("Slack's link back from an install (app_redirect) opens the workspace's page with Lookout's Home open", async () => {
    await page.goto(`${box.slack.url}/app_redirect?app=A_LOOKOUT&team=T_LOOKOUT`);
    await page.waitForURL((url) => url.pathname === '/');
    const home = page.getByTestId('home');
    await home.waitFor();
    expect(await page.locator('#channel-title').textContent()).toBe('Lookout');
    await expect.poll(() => home.locator('.block.header').first().textContent()).toBe('Lookout');
    await openChannel('general');
    expect(await home.isHidden()).toBe(true);
    expect(problems).toEqual([]);
  });

  it('installs into Other Co through the authorise screen, switches to it, and removes the app there; screenshot', async () => {
    const app = {
      clientId: '1.2',
      clientSecret: 'browser-secret',
      name: 'Lookout',
      redirectUris: [`${box.slack.url}/`],
    };
    box.slack.configureOAuth(app);
    const authorize = new URL('/oauth/v2/authorize', box.slack.url);
    for (const [k, v] of Object.entries({
      client_id: app.clientId,
      scope: 'commands,chat:write',
      state: 'st-b',
      team: 'T_OTHER',
    }))
      authorize.searchParams.set(k, v);
    await page.goto(authorize.toString());
    expect(await page.locator('h1').textContent()).toMatch(
      /Lookout is requesting permission to access the Other Co Slack workspace/,
    );
    await page.screenshot({ path: join(dirname(SCREENSHOT), 'oauth-authorize.png') });
    const landed = page.waitForRequest((r) => new URL(r.url()).searchParams.has('code'));
    await page.getByRole('button', { name: 'Allow' }).click();
    const redirect = new URL((await landed).url());
    expect(redirect.searchParams.get('state')).toBe('st-b');
    const basic = Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64');
    const granted = (await (
      await fetch(`${box.slack.apiUrl}oauth.v2.access`, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ code: redirect.searchParams.get('code') ?? '' }).toString(),
      })
    ).json()) as { ok: boolean; access_token: string; team: { id: string } };
    expect(granted).toMatchObject({ ok: true, team: { id: 'T_OTHER' } });

    // Landed on workspace one (the default): the menu switches to Other Co, its own channels and people.
    await expect.poll(() => page.locator('#workspace-name').textContent()).toBe('Lookout Sandbox');
    await page.getByTestId('team-switcher').selectOption('T_OTHER');
    await page.waitForURL(/\?team=T_OTHER/);
    await expect.poll(() => page.locator('#workspace-name').textContent()).toBe('Other Co');
    await expect.poll(() => page.getByTestId('connection-status').getAttribute('data-state')).toBe('live');
    expect(
      await page
        .locator('[data-testid="channel-item"]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-channel-name'))),
    ).toEqual(['general', 'growth']);
    expect(await page.getByTestId('user-switcher').inputValue()).toBe('U_DANA');

    const remove = page.getByTestId('remove-app');
    expect(await remove.textContent()).toBe('Remove app');
    await remove.click();
    await page.getByTestId('confirm-ok').click();
    await expect.poll(() => remove.textContent()).toBe('Not installed');
    expect(await remove.isDisabled()).toBe(true);
    const test = (await (
      await fetch(`${box.slack.apiUrl}auth.test`, {
        method: 'POST',
        headers: { authorization: `Bearer ${granted.access_token}` },
      })
    ).json()) as { ok: boolean; error?: string };
    expect(test).toEqual({ ok: false, error: 'token_revoked' });
    await expect
      .poll(() =>
        box.slack.team('T_OTHER').deliveries.map((d) => [(d.payload.event as { type: string }).type, d.status]),
      )
      .toEqual([
        ['tokens_revoked', 200],
        ['app_uninstalled', 200],
      ]);
    // Workspace one is untouched.
    expect(box.slack.oauth.installed('T_LOOKOUT')).toBe(true);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(dirname(SCREENSHOT), 'workspace-other-co.png') });
    expect(problems).toEqual([]);
  });

  it('adding `/traffic watch visits spike` shows its preview chart and count; an edit shows the new count', async () => {
    await page.goto(`${box.slack.url}/`);
    await expect.poll(() => page.getByTestId('connection-status').getAttribute('data-state')).toBe('live');
    await openChannel('marketing');
    const chart = '.block.chart[data-chart-type="line"]';
    /** The count a preview sentence says: "never", "once", "12 times". */
    const countOf = (text: string) => {
      const m = /Would (never have alerted|have alerted (once|([\d,]+) times)) in the last 28 days/.exec(text);
      expect(m, text).not.toBeNull();
      return m![1]!.startsWith('never') ? 0 : m![2] === 'once' ? 1 : Number(m![3]!.replace(/,/g, ''));
    };
    /** What the app's previewer says of the watch now: the browser must show the same count. */
    const expected = async (id: number) => {
      const watch = (await box.lookout.store.watches.get(id))!;
      const tenant = await box.lookout.tenants.of(watch.teamId);
      const preview = await box.lookout.features.watches.previewer.preview(
        tenant,
        undefined,
        watch.rule,
        watch.timeZone,
      );
      if (!preview.ok) throw new Error('no preview');
      return preview.value.replayed.filter((r) => r.kind === 'breach').length;
    };

    const added = await command('/traffic watch visits spike', chart);
    const text = (await added.textContent()) ?? '';
    const id = Number(/Watch #(\d+) added/.exec(text)?.[1]);
    await expect.poll(() => inked(added.locator(`${chart} canvas`))).toBeGreaterThan(500);
    const first = countOf(text);
    expect(first).toBe(await expected(id));
    // The demo's history has a past spike: the preview shows something real.
    expect(first).toBeGreaterThan(0);
    expect(await added.locator(`${chart} .chart-figures`).textContent()).toMatch(/would have alerted: /);

    // A rule that no hour of the demo's history comes near: the count the edit shows is 0, fewer than before.
    const edited = await command(`/traffic watch edit ${id} visits above 1000000 every hour`, chart);
    const after = (await edited.textContent()) ?? '';
    expect(after).toMatch(new RegExp(`Watch #${id} changed`));
    const second = countOf(after);
    expect(second).toBe(await expected(id));
    expect(second).toBeLessThan(first);
    await mkdir(dirname(SCREENSHOT), { recursive: true });
    await edited.scrollIntoViewIfNeeded();
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(dirname(SCREENSHOT), 'workspace-watch-preview.png') });
    expect(problems).toEqual([]);
  });

  it("produces a human spike from the sidebar's demo controls, and says what it added", async () => {
    await page.goto(`${box.slack.url}/`);
    await page.getByTestId('demo-human-spike').click();
    await expect
      .poll(() => page.locator('.toast-info').last().textContent())
      .toMatch(/^Human spike: 150 visits from x\.com by 150 new visitors, \d\d:\d\d–\d\d:\d\d UTC; none flagged\.$/);
    expect(box.demo!.account('one').spikes.map((s) => [s.kind, s.source.name])).toEqual([['human', 'x.com']]);
    expect(problems).toEqual([]);
  });
});
