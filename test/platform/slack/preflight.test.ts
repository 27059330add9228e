/**
 * Lookout's preflight between its Web API client and the offline Slack: what would break a
 * rule of Slack's is fitted before it leaves (and said so), what cannot be fitted is not sent
 * as it was, and the offline Slack refuses nothing.
 */
import { randomBytes } from 'node:crypto';
import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fitMessage } from '../../../src/platform/slack/kit/fit.js';
import { ResponseUrls } from '../../../src/platform/slack/respond.js';
import { PreflightGate } from '../../../src/platform/slack/preflight-gate.js';
import { startOfflineSlack, type OfflineSlack } from '@lookout/sandbox/slack';
import { LIMITS } from '../../../src/slack-rules/rules.js';
import { captureLogs } from '../../support/log-capture.js';
import { takePreflightReports } from '../../support/slack-rules-guard.js';

type Json = Record<string, unknown>;

const botToken = `xoxb-preflight-${randomBytes(4).toString('hex')}`;
let slack: OfflineSlack;
let client: WebClient;
let responses: ResponseUrls;
const { logger, lines } = captureLogs('info');
const preflight = new PreflightGate(logger);

beforeAll(async () => {
  slack = await startOfflineSlack({ signingSecret: randomBytes(16).toString('hex'), botToken, rateLimit: false });
  client = new WebClient(botToken, {
    slackApiUrl: slack.apiUrl,
    logLevel: LogLevel.ERROR,
    retryConfig: { retries: 0 },
    fetch: preflight.fetch(),
  });
  responses = new ResponseUrls(preflight, slack.url);
});
afterAll(async () => {
  await responses.close();
  await slack.close();
});

const chart = (title: string): Json => ({
  type: 'data_visualization',
  title,
  chart: {
    type: 'pie',
    segments: [
      { label: 'google', value: 1200 },
      { label: 'direct', value: 300 },
    ],
  },
});
const section = (text: string): Json => ({ type: 'section', text: { type: 'mrkdwn', text } });
const refusals = () => slack.webApi.calls.filter((c) => !c.ok && /invalid_(blocks|arguments)/.test(c.error ?? ''));

it('a third chart leaves as its figures in text, an alert block in a message as a section: Slack takes it, and the change is said', async () => {
  const before = refusals().length;
  const blocks = [
    chart('One'),
    chart('Two'),
    chart('Three'),
    { type: 'alert', level: 'error', text: { type: 'mrkdwn', text: '*Threat*' } },
  ];
  const { ts } = await client.chat.postMessage({ channel: 'C_GENERAL', text: 'charts', blocks: blocks as never });
  const posted = slack.workspace.message('C_GENERAL', ts!)!;
  expect(posted.blocks!.map((b) => b.type)).toEqual(['data_visualization', 'data_visualization', 'section', 'section']);
  expect(JSON.stringify(posted.blocks![2])).toContain('*Three*\\ngoogle: 1,200\\ndirect: 300');
  expect(refusals().length).toBe(before);
  const reports = takePreflightReports();
  expect(reports).toHaveLength(1);
  expect(reports[0]!.method).toBe('chat.postMessage');
  expect(reports[0]!.changes).toEqual([
    'blocks[2]: chart 3 of a message (Slack takes 2); sent as its figures in text',
    'blocks[3]: the alert block may not go in a message; sent as text',
  ]);
  expect(lines.some((l) => l.includes("a payload was fitted to Slack's rules"))).toBe(true);
});

it('a Home view with a table in it publishes with the table as text; 120 blocks become 100', async () => {
  const table = { type: 'table', rows: [[{ type: 'raw_text', text: 'Visitor' }], [{ type: 'raw_text', text: 'v_1' }]] };
  const blocks = [table, ...Array.from({ length: 119 }, (_, i) => section(`row ${i}`))];
  await client.views.publish({ user_id: 'U_ALICE', view: { type: 'home', blocks } as never });
  const home = slack.workspace.home('U_ALICE')?.view as { blocks: Json[] } | undefined;
  expect(home?.blocks).toHaveLength(LIMITS.viewBlocks);
  expect(home?.blocks[0]).toMatchObject({ type: 'section', text: { text: 'Visitor\nv_1' } });
  expect(takePreflightReports().map((r) => r.method)).toEqual(['views.publish']);
});

it('a modal that still breaks a rule is not sent: the client hears invalid_arguments, as from Slack, and the offline Slack hears nothing', async () => {
  const calls = slack.webApi.calls.length;
  const view = {
    type: 'modal',
    title: { type: 'plain_text', text: 'x'.repeat(LIMITS.viewTitle + 1) },
    blocks: [section('hi')],
  };
  await expect(
    client.views.open({ trigger_id: slack.workspace.issueTrigger('U_ALICE'), view: view as never }),
  ).rejects.toMatchObject({
    data: {
      error: 'invalid_arguments',
      response_metadata: {
        messages: [
          expect.stringContaining("view.title.text: must be at most 24 characters (Lookout's preflight: not sent)"),
        ],
      },
    },
  });
  expect(slack.webApi.calls.length).toBe(calls);
  expect(takePreflightReports()[0]).toMatchObject({
    method: 'views.open',
    reasons: ['view.title.text: must be at most 24 characters'],
  });
});

it('a message that still breaks a rule leaves as its text alone', async () => {
  const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(LIMITS.sectionText + 1) } }];
  const { ts } = await client.chat.postMessage({ channel: 'C_GENERAL', text: 'the words', blocks: blocks });
  expect(slack.workspace.message('C_GENERAL', ts!)).toMatchObject({ text: 'the words' });
  expect(slack.workspace.message('C_GENERAL', ts!)?.blocks ?? []).toEqual([]);
  expect(takePreflightReports()[0]!.reasons).toEqual([
    `blocks[0].text.text: must be at most ${LIMITS.sectionText} characters`,
  ]);
});

it('a response_url answer is fitted too', async () => {
  const url = slack.responseUrls.create({ kind: 'command', channel: 'C_GENERAL', user: 'U_ALICE' }).url;
  await responses.post(url, {
    text: 'answer',
    response_type: 'in_channel',
    blocks: [chart('a'), chart('b'), chart('c')],
  });
  const answer = slack.messages('C_GENERAL').at(-1)!;
  expect(answer.blocks!.map((b) => b.type)).toEqual(['data_visualization', 'data_visualization', 'section']);
  expect(takePreflightReports().map((r) => r.method)).toEqual(['response_url']);
});

it('the pure fit: attachments hold no header or chart, a table past its rows is cut and says so, and what fits is left as it was', () => {
  const ok = { text: 't', blocks: [section('a')], attachments: [{ color: '#E01E5A', blocks: [section('b')] }] };
  expect(fitMessage(ok)).toEqual({ value: ok, changes: [], reasons: [] });
  const rows = Array.from({ length: 120 }, (_, i) => [{ type: 'raw_text', text: `r${i}` }]);
  const fitted = fitMessage({
    text: 't',
    blocks: [{ type: 'table', rows }],
    attachments: [{ color: '#E01E5A', blocks: [{ type: 'header', text: { type: 'plain_text', text: 'h' } }] }],
  });
  expect(fitted.reasons).toEqual([]);
  const [table, note] = fitted.value.blocks as Json[];
  expect((table!.rows as unknown[]).length).toBe(LIMITS.tableRows);
  expect(JSON.stringify(note)).toContain('…20 more rows not shown here.');
  expect((fitted.value.attachments as Json[])[0]!.blocks).toEqual([section('h')]);
  // Within its budget in characters, though not in UTF-16 units: left as it was.
  const emoji = {
    type: 'table',
    rows: Array.from({ length: 50 }, () => [{ type: 'raw_text', text: '😀'.repeat(150) }]),
  };
  expect(fitMessage({ text: 't', blocks: [emoji] })).toEqual({
    value: { text: 't', blocks: [emoji] },
    changes: [],
    reasons: [],
  });
});
