/**
 * The sandbox's Slackbot panel: Slackbot's side of the app's MCP server. The routes and the page
 * (Debian's chromium through playwright-core) against a stand-in MCP server that takes only
 * requests signed with the app's signing secret; and, once Lookout serves its own `/mcp`
 * (src/features/agents/), the page against the real app's `report`.
 * The browser parts skip, saying why, when chromium is not installed (`apt-get install chromium`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOfflineSlack, type OfflineSlack } from '@lookout/sandbox/slack';
import { createLogger } from '../../src/platform/log.js';
import { startMcpStandIn, type McpStandIn } from '../support/mcp-stand-in.js';
import { startTestSandbox, type Sandbox } from '../support/sandbox.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const browserAvailable = existsSync(CHROMIUM);
/** Lookout's own MCP server is there (the `mcp` branch merged). */
const lookoutServesMcp = existsSync(join(import.meta.dirname, '../../src/features/agents/index.ts'));
const SECRET = 'slackbot-test-signing-secret';

if (!browserAvailable) console.warn(`[slackbot] browser parts skipped: no chromium at ${CHROMIUM}`);

type Json = Record<string, unknown>;

async function call(slack: OfflineSlack, method: string, path: string, body?: Json): Promise<Json> {
  const res = await fetch(`${slack.url}${path}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, ...((await res.json()) as Json) };
}

async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
}

/** A page on the offline Slack that reports its errors and any request off loopback's Slack into `problems`. */
async function openPage(browser: Browser, base: string, problems: string[]): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, locale: 'en-US' });
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource'))
      problems.push(`console: ${msg.text()}`);
  });
  // Failed loads are told by their response; the demo's controls are absent without a demo API.
  page.on('response', (response) => {
    if (response.status() >= 400 && new URL(response.url()).pathname !== '/ui/demo')
      problems.push(`${response.status()}: ${response.url()}`);
  });
  page.on('request', (request) => {
    if (!request.url().startsWith(base)) problems.push(`external request: ${request.url()}`);
  });
  await page.goto(`${base}/`);
  await expect.poll(() => page.getByTestId('connection-status').getAttribute('data-state')).toBe('live');
  return page;
}

/** Opens the panel and waits for the app's tools in its picker. */
async function openSlackbot(page: Page): Promise<string[]> {
  await page.getByTestId('slackbot-open').click();
  const picker = page.getByTestId('slackbot-tool');
  await expect.poll(() => picker.locator('option').count()).toBeGreaterThan(0);
  return picker.locator('option').evaluateAll((options) => options.map((o) => o.getAttribute('value') ?? ''));
}

describe('the Slackbot panel against a stand-in MCP server', () => {
  let slack: OfflineSlack;
  let standIn: McpStandIn;

  beforeEach(async () => {
    standIn = await startMcpStandIn(SECRET);
    slack = await startOfflineSlack({
      signingSecret: SECRET,
      botToken: 'xoxb-slackbot-test',
      appUrl: `${standIn.base}/slack/events`,
    });
  });

  afterEach(async () => {
    await slack.close();
    await standIn.close();
  });

  it('lists the tools through tools/list, signed, at the app base + /mcp', async () => {
    const listed = await call(slack, 'GET', '/ui/slackbot/list?user=U_ALICE');
    expect(listed).toMatchObject({ status: 200, ok: true, url: `${standIn.base}/mcp` });
    const tools = listed.tools as { name: string; inputSchema: Json }[];
    expect(tools.map((t) => t.name)).toEqual(['report', 'setup', 'trend']);
    expect(tools[0]!.inputSchema).toMatchObject({
      properties: { report: { enum: ['sources', 'pages'] }, top: { type: 'integer', description: 'How many rows' } },
    });
    expect(standIn.refused).toBe(0);
  });

  it("calls a tool as the person, with _meta.slack, and answers Slackbot's way", async () => {
    const answered = await call(slack, 'POST', '/ui/slackbot/call', {
      user: 'U_BOB',
      tool: 'report',
      arguments: { report: 'pages', top: 2 },
    });
    expect(answered).toMatchObject({ status: 200, ok: true, answer: { is_error: false, problems: [] } });
    const answer = answered.answer as { text: string; blocks: Json[] };
    expect(answer.text).toBe('Pages, last7d: / 2100, /pricing 640');
    expect(answer.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Pages, last7d' } });
    expect(standIn.calls).toEqual([
      {
        tool: 'report',
        args: { report: 'pages', range: 'last7d', top: 2 },
        slack: { user_id: 'U_BOB', team_id: 'T_LOOKOUT' },
      },
    ]);

    const refused = await call(slack, 'POST', '/ui/slackbot/call', { user: 'U_ALICE', tool: 'trend', arguments: {} });
    expect(refused).toMatchObject({
      ok: true,
      answer: {
        is_error: true,
        blocks: null,
        text: "not connected: a workspace admin connects it from Lookout's Home",
      },
    });
    // Each request is signed afresh: the stand-in refuses a replay, and none was refused.
    expect(standIn.refused).toBe(0);
  });

  it('puts the organisation in _meta.slack where the workspace has one', async () => {
    slack.workspace.team.enterprise = { id: 'E_ORG', name: 'The Org' };
    await call(slack, 'POST', '/ui/slackbot/call', { user: 'U_ALICE', tool: 'setup' });
    expect(standIn.calls.at(-1)?.slack).toEqual({ user_id: 'U_ALICE', team_id: 'T_LOOKOUT', enterprise_id: 'E_ORG' });
  });

  it('refuses where Slackbot could not ask: another secret, no such person, the app not installed', async () => {
    const wrong = await startOfflineSlack({
      signingSecret: 'not-the-apps-secret',
      botToken: 'xoxb-slackbot-test',
      appUrl: `${standIn.base}/slack/events`,
    });
    try {
      const listed = await call(wrong, 'GET', '/ui/slackbot/list?user=U_ALICE');
      expect(listed).toMatchObject({ status: 502, ok: false, error: 'mcp_failed' });
      expect(String(listed.detail)).toMatch(/Unauthorized/);
      expect(standIn.refused).toBeGreaterThan(0);
    } finally {
      await wrong.close();
    }
    expect(await call(slack, 'GET', '/ui/slackbot/list?user=U_NOBODY')).toMatchObject({ error: 'unknown_user' });
    expect(await call(slack, 'GET', '/ui/slackbot/list?user=U_DANA&team=T_OTHER')).toMatchObject({
      error: 'not_installed',
    });
    expect(standIn.calls).toEqual([]);
  });

  describe.skipIf(!browserAvailable)('in a browser', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launch();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('lists the tools, fills a form from the schema, and shows the blocks, the text and a refusal', async () => {
      const problems: string[] = [];
      const page = await openPage(browser, slack.url, problems);
      expect(await openSlackbot(page)).toEqual(['report', 'setup', 'trend']);
      const panel = page.getByTestId('slackbot-panel');
      await expect
        .poll(() => panel.getByTestId('slackbot-status').textContent())
        .toBe(`3 tools at ${standIn.base}/mcp`);

      // The form is the schema: an enum is a select, a number a number input, a string a text input, with hints.
      await page.getByTestId('slackbot-tool').selectOption('report');
      const field = (name: string) => panel.locator(`[data-testid="slackbot-field"][data-arg="${name}"]`);
      expect(await field('report').locator('select option').allTextContents()).toEqual(['sources', 'pages']);
      expect(await field('top').locator('input').getAttribute('type')).toBe('number');
      expect(await field('top').locator('input').inputValue()).toBe('10');
      expect(await field('range').locator('input').inputValue()).toBe('last7d');
      expect(await field('top').locator('.slackbot-hint').textContent()).toBe('How many rows');
      expect(await page.getByTestId('slackbot-description').textContent()).toBe(
        'Rows and totals of one report for a period.',
      );

      await page.getByLabel('report', { exact: false }).first().selectOption('pages');
      await field('top').locator('input').fill('3');
      await page.getByTestId('slackbot-ask').click();
      const answer = panel.getByTestId('slackbot-answer').last();
      await answer.locator('.block.header').waitFor();
      expect(await answer.locator('.block.header').textContent()).toBe('Pages, last7d');
      const rows = await answer.getByTestId('block-table').locator('tr').allTextContents();
      expect(rows).toEqual(['NameVisits', '/2100', '/pricing640', '/blog/launch410']);
      expect(standIn.calls.at(-1)).toEqual({
        tool: 'report',
        args: { report: 'pages', range: 'last7d', top: 3 },
        slack: { user_id: 'U_ALICE', team_id: 'T_LOOKOUT' },
      });

      // No blocks: the text. A refusal: an error line with what the app said.
      await page.getByTestId('slackbot-tool').selectOption('setup');
      await page.getByTestId('slackbot-ask').click();
      await expect
        .poll(() => panel.getByTestId('slackbot-answer').last().textContent())
        .toContain('No watches, digests or threat alerts in your channels.');
      await page.getByTestId('slackbot-tool').selectOption('trend');
      await page.getByTestId('slackbot-ask').click();
      await expect
        .poll(() => panel.getByTestId('slackbot-answer').last().getByTestId('slackbot-error').textContent())
        .toBe("not connected: a workspace admin connects it from Lookout's Home");

      // As another person: the call says so.
      await page.getByTestId('user-switcher').selectOption('U_CAROL');
      await page.getByTestId('slackbot-tool').selectOption('setup');
      await page.getByTestId('slackbot-ask').click();
      await expect.poll(() => standIn.calls.at(-1)?.slack).toEqual({ user_id: 'U_CAROL', team_id: 'T_LOOKOUT' });
      expect(problems).toEqual([]);
      await page.close();
    });
  });
});

describe.skipIf(!browserAvailable || !lookoutServesMcp)("the Slackbot panel against Lookout's own /mcp", () => {
  let box: Sandbox;
  let browser: Browser;

  beforeAll(async () => {
    box = await startTestSandbox({ log: createLogger({ level: 'silent' }), scheduler: false });
    browser = await launch();
  });

  afterAll(async () => {
    await browser?.close();
    await box?.stop();
  });

  it('lists report, fills its form, and shows the blocks of its answer', async () => {
    const problems: string[] = [];
    const page = await openPage(browser, box.slack.url, problems);
    expect(await openSlackbot(page)).toContain('report');
    await page.getByTestId('slackbot-tool').selectOption('report');
    const panel = page.getByTestId('slackbot-panel');
    // Whatever the schema calls it, the report to run is the select that offers `sources`.
    const selects = panel.locator('[data-testid="slackbot-field"] select');
    for (let i = 0; i < (await selects.count()); i++) {
      const values = await selects
        .nth(i)
        .locator('option')
        .evaluateAll((o) => o.map((x) => x.getAttribute('value') ?? ''));
      if (values.includes('sources')) await selects.nth(i).selectOption('sources');
    }
    await page.getByTestId('slackbot-ask').click();
    const answer = panel.getByTestId('slackbot-answer').last();
    await answer.locator('.blocks').waitFor();
    expect(await answer.getByTestId('slackbot-error').count()).toBe(0);
    expect(await answer.locator('.blocks > *').count()).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await page.close();
  });
});
