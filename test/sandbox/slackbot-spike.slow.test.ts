/**
 * "Why did it move" for the demo's spike, asked in the sandbox's Slackbot panel (Debian's
 * chromium through playwright-core), with the app and the page's demo controls on a test clock:
 * threat alerts on in #security, an hourly spike watch in #marketing, the sidebar's human spike at 14:37, the threat scan every
 * ten minutes, the hour ends, the watch evaluates and its alert is explained in place. Then the
 * panel lists Lookout's five tools, and `why_moved` asked for the watch shows the same movers and
 * verdict as the alert in the channel; asked for the spike's date and hour, the spike's new
 * source with its 150 visits. Screenshots go to a temporary folder.
 */
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/log.js';
import { startTestSandbox, type Sandbox } from '../support/sandbox.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// Yesterday 14:00 UTC, a busy hour in the demo's data (which ends at the real now).
const HOUR_START = Math.floor(Date.now() / DAY) * DAY - DAY + 14 * HOUR;
let clock = HOUR_START - 10 * MINUTE;

if (!available) console.warn(`[slackbot-spike] skipped: no chromium at ${CHROMIUM}`);

/** The two lines of an explanation as a page shows them: "What moved (against …): …" and the words after "Who moved it:". */
async function explanationOf(shown: Locator): Promise<{ whatMoved: string; verdict: string }> {
  const text = await shown.innerText();
  const whatMoved = /What moved[^\n]*/.exec(text)?.[0]?.trim() ?? '';
  const verdict = /Who moved it:\s*([^\n]+)/.exec(text)?.[1]?.trim() ?? '';
  return { whatMoved, verdict };
}

const VERDICT = /^(mostly people|mostly automated|mixed|unknown)\b/;

describe.skipIf(!available)('the Slackbot panel explains the demo’s spike as the watch’s alert does', () => {
  let box: Sandbox;
  let browser: Browser;
  let screens: string;
  const problems: string[] = [];

  beforeAll(async () => {
    box = await startTestSandbox({
      log: createLogger({ level: 'silent' }),
      scheduler: false,
      now: () => new Date(clock),
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    screens = await mkdtemp(join(tmpdir(), 'slackbot-spike-'));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await box?.stop();
  });

  // Carol's zone is UTC, as is the app's DEFAULT_TIMEZONE: the watch's hour is the one named.
  async function open(channel: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, locale: 'en-US' });
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(`${box.slack.url}/?user=carol&channel=${channel}`);
    await expect.poll(() => page.getByTestId('connection-status').getAttribute('data-state')).toBe('live');
    return page;
  }

  async function type(page: Page, text: string, answer: RegExp): Promise<void> {
    await page.getByTestId('composer-input').fill(text);
    await page.getByTestId('composer-send').click();
    await expect.poll(() => page.getByTestId('message-list').textContent()).toMatch(answer);
  }

  /** The threat scan as its timer would run it, every ten minutes, up to `minutes` past 14:00. */
  async function scanUntil(minutes: number): Promise<void> {
    const end = HOUR_START + minutes * MINUTE;
    do {
      clock = Math.min(clock + 10 * MINUTE, end);
      expect((await box.lookout.features.threats.scan.scan()).status).toBe('scanned');
    } while (clock < end);
  }

  /** Asks `why_moved` with these fields filled (the others left as the form draws them) and returns the answer shown. */
  async function askWhyMoved(page: Page, fill: Record<string, string>): Promise<Locator> {
    const panel = page.getByTestId('slackbot-panel');
    await page.getByTestId('slackbot-tool').selectOption('why_moved');
    const field = (name: string) => panel.locator(`[data-testid="slackbot-field"][data-arg="${name}"] .slackbot-input`);
    for (const name of ['watch', 'date', 'hour']) await field(name).fill(fill[name] ?? '');
    const before = await panel.getByTestId('slackbot-answer').count();
    await page.getByTestId('slackbot-ask').click();
    await expect.poll(() => panel.getByTestId('slackbot-answer').count()).toBe(before + 1);
    const answer = panel.getByTestId('slackbot-answer').nth(before);
    expect(await answer.getByTestId('slackbot-error').count()).toBe(0);
    await answer.locator('.blocks').waitFor();
    expect(await answer.getByTestId('slackbot-problems').count()).toBe(0);
    return answer;
  }

  it('lists the five tools; why_moved names the alert’s movers and verdict, and the spike’s hour', async () => {
    // The threat scan judges the hour's visitors only where threat alerts are on.
    const security = await open('security');
    await type(security, '/traffic alerts on', /Threat alerts are on/);
    expect((await box.lookout.features.threats.scan.scan()).status).toBe('scanned');
    await security.close();
    const page = await open('marketing');
    await type(page, '/traffic watch visits spike every hour', /Watch #\d+ added/);
    const watch = Number(/Watch #(\d+) added/.exec((await page.getByTestId('message-list').textContent()) ?? '')?.[1]);

    await scanUntil(37);
    await page.getByTestId('demo-human-spike').click();
    await page.getByRole('status').filter({ hasText: 'Human spike:' }).waitFor();
    const [spike] = box.demo!.accounts[0]!.spikes;
    expect([spike?.kind, spike?.visits]).toEqual(['human', 150]);
    const source = spike!.source.name;

    await scanUntil(59);
    // The hour is judged once it has settled at the API (10 minutes), within its spread (20 minutes).
    clock = HOUR_START + HOUR + 31 * MINUTE;
    await box.lookout.features.watches.evaluator.tick();
    clock = HOUR_START + HOUR + 33 * MINUTE;
    await box.lookout.features.watches.evaluator.tick();
    const alert = page.getByTestId('message-list').getByTestId('message').filter({ hasText: 'Who moved it' }).last();
    await alert.waitFor({ timeout: 30_000 });
    await alert.scrollIntoViewIfNeeded();
    const said = await explanationOf(alert);
    // Its 150 new visits, and (as the data has it) how everything else from that source moved.
    const newSource = new RegExp(`\\): source ${source.replace(/\./g, '\\.')} \\+150 \\(new[;)]`);
    expect(said.whatMoved).toMatch(newSource);
    expect(said.verdict).toMatch(VERDICT);

    await page.getByTestId('slackbot-open').click();
    const picker = page.getByTestId('slackbot-tool');
    await expect.poll(() => picker.locator('option').count()).toBe(5);
    const tools = await picker.locator('option').evaluateAll((o) => o.map((x) => x.getAttribute('value') ?? ''));
    expect(tools.toSorted()).toEqual(['report', 'setup', 'trend', 'visitor_profile', 'why_moved']);

    const forWatch = await askWhyMoved(page, { watch: String(watch) });
    await page.screenshot({ path: join(screens, 'slackbot-spike-1-watch.png') });
    expect(await explanationOf(forWatch)).toEqual(said);

    // The hour named, against the hour before: the new source's 150 visits lead, and a verdict in the same words.
    const day = new Date(HOUR_START).toISOString().slice(0, 10);
    const forHour = await askWhyMoved(page, { date: day, hour: '14' });
    await page.screenshot({ path: join(screens, 'slackbot-spike-2-hour.png') });
    const named = await explanationOf(forHour);
    expect(named.whatMoved).toMatch(/^What moved \(against the hour before\): /);
    expect(named.whatMoved).toMatch(newSource);
    expect(named.verdict).toMatch(VERDICT);
    expect(await forHour.innerText()).toMatch(/14:00–15:00 on .+ \(UTC\)/);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);
});
