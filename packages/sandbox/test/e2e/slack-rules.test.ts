/**
 * Every rule in Slack's table (src/slack-rules/rules.ts), planted once and sent to the
 * offline Slack over HTTP with the Web API client: refused with a reason naming what broke
 * it, while the same payload within the rule is taken. The table's types make this file
 * list a case for every limit: a new rule without a case does not compile.
 */
import { randomBytes } from 'node:crypto';
import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOfflineSlack, type OfflineSlack } from '../../src/slack/index.js';
import {
  BLOCK_RULES,
  LIMIT_RULES,
  LIMITS,
  METHOD_RULES,
  type BlockType,
  type LimitName,
  type Surface,
} from '@lookout/slack-rules/rules';

type Json = Record<string, unknown>;

const botToken = `xoxb-rules-${randomBytes(4).toString('hex')}`;
let slack: OfflineSlack;
let client: WebClient;

beforeAll(async () => {
  slack = await startOfflineSlack({ signingSecret: randomBytes(16).toString('hex'), botToken, rateLimit: false });
  client = new WebClient(botToken, {
    slackApiUrl: slack.apiUrl,
    logLevel: LogLevel.ERROR,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
});
afterAll(() => slack.close());
beforeEach(() => slack.setRateLimit(false));

const x = (n: number): string => 'x'.repeat(n);
const plain = (text: string): Json => ({ type: 'plain_text', text });
const mrkdwn = (text: string): Json => ({ type: 'mrkdwn', text });
const cell = (text = 'a'): Json => ({ type: 'raw_text', text });
const button = (extra: Json = {}): Json => ({ type: 'button', text: plain('Go'), action_id: 'go', ...extra });
const actions = (...elements: Json[]): Json => ({ type: 'actions', elements });
const option = (value: string, text = value): Json => ({ text: plain(text), value });
const options = (n: number): Json[] => Array.from({ length: n }, (_, i) => option(`v${i}`));
const days = ['Nov 17', 'Nov 18'];
const line = (extra: Json = {}, categories = days): Json => ({
  type: 'data_visualization',
  title: 'Visits',
  chart: {
    type: 'line',
    series: [{ name: 'a', data: categories.map((label) => ({ label, value: 1 })) }],
    axis_config: { categories },
  },
  ...extra,
});
const pie = (n: number, label = 'p'): Json => ({
  type: 'data_visualization',
  title: 'Share',
  chart: {
    type: 'pie',
    segments: Array.from({ length: n }, (_, i) => ({
      label: `${label}${i}`.slice(-Math.max(label.length, 2)),
      value: 1,
    })),
  },
});
const table = (rows: number, cells = 2, text = 'a'): Json => ({
  type: 'table',
  rows: Array.from({ length: rows }, () => Array.from({ length: cells }, () => cell(text))),
});
const dataTable = (rows: number, extra: Json = {}, text = 'a'): Json => ({
  type: 'data_table',
  caption: 'c',
  rows: Array.from({ length: rows }, () => [cell(text), cell(text)]),
  ...extra,
});
const input = (element: Json = { type: 'plain_text_input', action_id: 'i' }, extra: Json = {}): Json => ({
  type: 'input',
  label: plain('L'),
  element,
  ...extra,
});

/** The smallest valid block of each type. */
const SAMPLES: Record<BlockType, Json> = {
  section: { type: 'section', text: mrkdwn('s') },
  header: { type: 'header', text: plain('h') },
  divider: { type: 'divider' },
  context: { type: 'context', elements: [mrkdwn('c')] },
  actions: actions(button()),
  image: { type: 'image', image_url: 'https://example.com/a.png', alt_text: 'a' },
  input: input(),
  rich_text: { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'r' }] }] },
  video: {
    type: 'video',
    alt_text: 'v',
    title: plain('v'),
    video_url: 'https://example.com/v',
    thumbnail_url: 'https://example.com/t.png',
  },
  table: table(2),
  markdown: { type: 'markdown', text: 'm' },
  context_actions: { type: 'context_actions', elements: [{ type: 'feedback_buttons', action_id: 'f' }] },
  data_table: dataTable(2),
  data_visualization: line(),
  alert: { type: 'alert', level: 'error', text: plain('a') },
};

type Where = Surface | 'attachment';
type Answer = { ok: true } | { ok: false; error: string; messages: string[] };

async function send(where: Where, blocks: unknown[], view: Json = {}): Promise<Answer> {
  try {
    if (where === 'message')
      await client.chat.postMessage({ channel: 'C_GENERAL', text: 't', blocks: blocks as never });
    else if (where === 'attachment')
      await client.chat.postMessage({
        channel: 'C_GENERAL',
        text: 't',
        attachments: [{ color: '#E01E5A', blocks: blocks as never }],
      });
    else if (where === 'home')
      await client.views.publish({ user_id: 'U_ALICE', view: { type: 'home', blocks, ...view } as never });
    else {
      const trigger = slack.workspace.issueTrigger('U_ALICE');
      const hasInput = blocks.some((b) => (b as Json).type === 'input');
      await client.views.open({
        trigger_id: trigger,
        view: {
          type: 'modal',
          title: plain('T'),
          ...(hasInput ? { submit: plain('OK') } : {}),
          blocks,
          ...view,
        } as never,
      });
    }
    return { ok: true };
  } catch (error) {
    const data = (error as { data?: { error?: string; response_metadata?: { messages?: string[] } } }).data;
    return { ok: false, error: data?.error ?? String(error), messages: data?.response_metadata?.messages ?? [] };
  }
}

describe("each block's surfaces, as Slack's table says", () => {
  const cases: { type: BlockType; where: Where; allowed: boolean }[] = [];
  for (const [type, rule] of Object.entries(BLOCK_RULES) as [BlockType, (typeof BLOCK_RULES)[BlockType]][]) {
    for (const where of ['message', 'modal', 'home'] as const)
      cases.push({ type, where, allowed: (rule.surfaces as readonly Surface[]).includes(where) });
    if ((rule.surfaces as readonly Surface[]).includes('message'))
      cases.push({ type, where: 'attachment', allowed: rule.inAttachments });
  }

  it.each(cases)('$type in a $where: allowed $allowed', async ({ type, where, allowed }) => {
    const answer = await send(where, [SAMPLES[type]]);
    if (allowed) {
      expect(answer).toEqual({ ok: true });
      return;
    }
    expect(answer.ok).toBe(false);
    if (answer.ok) return;
    expect(answer.error).toBe(where === 'modal' || where === 'home' ? 'invalid_arguments' : 'invalid_blocks');
    const surface = where === 'attachment' ? 'message attachment' : where;
    expect(answer.messages.join('\n')).toContain(`"${type}" blocks are not allowed in a ${surface}`);
  });
});

/** A limit's case: the payload holding exactly `n`, where it goes, and what the refusal points at. */
interface LimitCase {
  make: (n: number) => unknown[];
  where?: Where;
  view?: (n: number) => Json;
  /** The json-pointer of the refusal (the limit's field). */
  pointer: string;
}

const LIMIT_CASES: Record<Exclude<LimitName, 'messageText' | 'messageAttachments'>, LimitCase> = {
  messageBlocks: { make: (n) => Array.from({ length: n }, () => ({ type: 'divider' })), pointer: '/blocks' },
  viewBlocks: {
    make: (n) => Array.from({ length: n }, () => ({ type: 'divider' })),
    where: 'home',
    pointer: '/view/blocks',
  },
  sectionText: { make: (n) => [{ type: 'section', text: mrkdwn(x(n)) }], pointer: '/blocks/0/text/text' },
  sectionFields: {
    make: (n) => [{ type: 'section', fields: Array.from({ length: n }, () => mrkdwn('f')) }],
    pointer: '/blocks/0/fields',
  },
  sectionFieldText: { make: (n) => [{ type: 'section', fields: [mrkdwn(x(n))] }], pointer: '/blocks/0/fields/0/text' },
  headerText: { make: (n) => [{ type: 'header', text: plain(x(n)) }], pointer: '/blocks/0/text/text' },
  contextElements: {
    make: (n) => [{ type: 'context', elements: Array.from({ length: n }, () => mrkdwn('c')) }],
    pointer: '/blocks/0/elements',
  },
  contextText: { make: (n) => [{ type: 'context', elements: [mrkdwn(x(n))] }], pointer: '/blocks/0/elements/0/text' },
  blockId: { make: (n) => [{ type: 'divider', block_id: x(n) }], pointer: '/blocks/0/block_id' },
  actionId: { make: (n) => [actions(button({ action_id: x(n) }))], pointer: '/blocks/0/elements/0/action_id' },
  actionsElements: {
    make: (n) => [actions(...Array.from({ length: n }, (_, i) => button({ action_id: `b${i}` })))],
    pointer: '/blocks/0/elements',
  },
  buttonText: { make: (n) => [actions(button({ text: plain(x(n)) }))], pointer: '/blocks/0/elements/0/text/text' },
  buttonValue: { make: (n) => [actions(button({ value: x(n) }))], pointer: '/blocks/0/elements/0/value' },
  url: { make: (n) => [actions(button({ url: `https://e.com/${x(n - 14)}` }))], pointer: '/blocks/0/elements/0/url' },
  accessibilityLabel: {
    make: (n) => [actions(button({ accessibility_label: x(n) }))],
    pointer: '/blocks/0/elements/0/accessibility_label',
  },
  selectOptions: {
    make: (n) => [actions({ type: 'static_select', action_id: 's', options: options(n) })],
    pointer: '/blocks/0/elements/0/options',
  },
  optionGroups: {
    make: (n) => [
      actions({
        type: 'static_select',
        action_id: 's',
        option_groups: Array.from({ length: n }, (_, i) => ({ label: plain('g'), options: [option(`v${i}`)] })),
      }),
    ],
    pointer: '/blocks/0/elements/0/option_groups',
  },
  overflowOptions: {
    make: (n) => [actions({ type: 'overflow', action_id: 'o', options: options(n) })],
    pointer: '/blocks/0/elements/0/options',
  },
  checkboxOptions: {
    make: (n) => [actions({ type: 'checkboxes', action_id: 'c', options: options(n) })],
    pointer: '/blocks/0/elements/0/options',
  },
  optionText: {
    make: (n) => [actions({ type: 'static_select', action_id: 's', options: [option('v', x(n))] })],
    pointer: '/blocks/0/elements/0/options/0/text/text',
  },
  optionValue: {
    make: (n) => [actions({ type: 'static_select', action_id: 's', options: [option(x(n), 'v')] })],
    pointer: '/blocks/0/elements/0/options/0/value',
  },
  optionDescription: {
    make: (n) => [
      actions({ type: 'static_select', action_id: 's', options: [{ ...option('v'), description: plain(x(n)) }] }),
    ],
    pointer: '/blocks/0/elements/0/options/0/description/text',
  },
  optionGroupLabel: {
    make: (n) => [
      actions({
        type: 'static_select',
        action_id: 's',
        option_groups: [{ label: plain(x(n)), options: [option('v')] }],
      }),
    ],
    pointer: '/blocks/0/elements/0/option_groups/0/label/text',
  },
  confirmTitle: {
    make: (n) => [actions(button({ confirm: { title: plain(x(n)), text: plain('t') } }))],
    pointer: '/blocks/0/elements/0/confirm/title/text',
  },
  confirmText: {
    make: (n) => [actions(button({ confirm: { text: plain(x(n)) } }))],
    pointer: '/blocks/0/elements/0/confirm/text/text',
  },
  confirmButton: {
    make: (n) => [actions(button({ confirm: { text: plain('t'), confirm: plain(x(n)) } }))],
    pointer: '/blocks/0/elements/0/confirm/confirm/text',
  },
  placeholder: {
    make: (n) => [actions({ type: 'static_select', action_id: 's', placeholder: plain(x(n)), options: options(1) })],
    pointer: '/blocks/0/elements/0/placeholder/text',
  },
  imageAltText: {
    make: (n) => [{ type: 'image', image_url: 'https://example.com/a.png', alt_text: x(n) }],
    pointer: '/blocks/0/alt_text',
  },
  imageTitle: {
    make: (n) => [{ type: 'image', image_url: 'https://example.com/a.png', alt_text: 'a', title: plain(x(n)) }],
    pointer: '/blocks/0/title/text',
  },
  inputLabel: {
    make: (n) => [{ ...input(), label: plain(x(n)) }],
    where: 'modal',
    pointer: '/view/blocks/0/label/text',
  },
  inputHint: {
    make: (n) => [input(undefined, { hint: plain(x(n)) })],
    where: 'modal',
    pointer: '/view/blocks/0/hint/text',
  },
  plainTextInputLength: {
    make: (n) => [input({ type: 'plain_text_input', action_id: 'i', max_length: n })],
    where: 'modal',
    pointer: '/view/blocks/0/element/max_length',
  },
  tableRows: { make: (n) => [table(n)], pointer: '/blocks/0/rows' },
  tableCells: { make: (n) => [table(1, n)], pointer: '/blocks/0/rows/0' },
  tableColumnSettings: {
    make: (n) => [{ ...table(1), column_settings: Array.from({ length: n }, () => ({ align: 'left' })) }],
    pointer: '/blocks/0/column_settings',
  },
  tablesPerMessage: {
    make: (n) => Array.from({ length: n }, () => table(1)),
    pointer: `/blocks/${LIMITS.tablesPerMessage}`,
  },
  tableChars: { make: (n) => [table(2, 1, x(n / 2))], pointer: '/blocks/0/rows' },
  markdownText: {
    make: (n) => [
      { type: 'markdown', text: x(n / 2) },
      { type: 'markdown', text: x(n / 2) },
    ],
    pointer: '/blocks/1/text',
  },
  contextActionsElements: {
    make: (n) => [
      {
        type: 'context_actions',
        elements: Array.from({ length: n }, (_, i) => ({ type: 'feedback_buttons', action_id: `f${i}` })),
      },
    ],
    pointer: '/blocks/0/elements',
  },
  dataTableRows: { make: (n) => [dataTable(n + 1)], pointer: '/blocks/0/rows' },
  dataTablePageSize: { make: (n) => [dataTable(2, { page_size: n })], pointer: '/blocks/0/page_size' },
  dataTableChars: { make: (n) => [dataTable(2, {}, x(n / 4))], pointer: '/blocks/0/rows' },
  chartTitle: { make: (n) => [line({ title: x(n) })], pointer: '/blocks/0/title' },
  chartSeries: { make: (n) => [pie(n)], pointer: '/blocks/0/chart/segments' },
  chartLabel: { make: (n) => [line({}, [x(n), 'b'])], pointer: '/blocks/0/chart/axis_config/categories/0' },
  chartsPerMessage: {
    make: (n) => Array.from({ length: n }, () => line()),
    pointer: `/blocks/${LIMITS.chartsPerMessage}`,
  },
  alertText: {
    make: (n) => [{ type: 'alert', level: 'info', text: plain(x(n)) }],
    where: 'modal',
    pointer: '/view/blocks/0/text/text',
  },
  videoTitle: { make: (n) => [{ ...SAMPLES.video, title: plain(x(n)) }], pointer: '/blocks/0/title/text' },
  viewTitle: {
    make: () => [SAMPLES.divider],
    view: (n) => ({ title: plain(x(n)) }),
    where: 'modal',
    pointer: '/view/title/text',
  },
  viewButton: {
    make: () => [SAMPLES.divider],
    view: (n) => ({ close: plain(x(n)) }),
    where: 'modal',
    pointer: '/view/close/text',
  },
  privateMetadata: {
    make: () => [SAMPLES.divider],
    view: (n) => ({ private_metadata: x(n) }),
    where: 'modal',
    pointer: '/view/private_metadata',
  },
  callbackId: {
    make: () => [SAMPLES.divider],
    view: (n) => ({ callback_id: x(n) }),
    where: 'modal',
    pointer: '/view/callback_id',
  },
  externalId: {
    make: () => [SAMPLES.divider],
    view: (n) => ({ external_id: `${x(n - 6)}${randomBytes(3).toString('hex')}` }),
    where: 'home',
    pointer: '/view/external_id',
  },
};

describe("each limit in Slack's table", () => {
  const cases = Object.entries(LIMIT_CASES).map(([name, c]) => ({ name: name as LimitName, ...c }));

  it.each(cases)(
    '$name: at the limit taken, one past refused at its field',
    async ({ name, make, where = 'message', view, pointer }) => {
      const max = LIMIT_RULES[name].max;
      expect(await send(where, make(max), view?.(max))).toEqual({ ok: true });
      const over = await send(
        where,
        make(max + (name === 'tableChars' || name === 'markdownText' || name === 'dataTableChars' ? 4 : 1)),
        view?.(max + 1),
      );
      expect(over.ok).toBe(false);
      if (over.ok) return;
      expect(
        over.messages.some((m) => m.includes(`[json-pointer:${pointer}]`)),
        over.messages.join('\n'),
      ).toBe(true);
    },
  );

  it('messageText: text past 40,000 characters is cut, not refused', async () => {
    const { ts } = await client.chat.postMessage({ channel: 'C_GENERAL', text: x(LIMITS.messageText + 10) });
    expect(slack.workspace.message('C_GENERAL', ts!)?.text.length).toBe(LIMITS.messageText);
  });

  it('messageAttachments: at most 100, each colour a hex code or a name', async () => {
    const bar = { color: '#2EB67D', blocks: [SAMPLES.section] as never[] };
    expect(await send('message', [SAMPLES.section])).toEqual({ ok: true });
    await expect(
      client.chat.postMessage({
        channel: 'C_GENERAL',
        text: 't',
        attachments: Array.from({ length: LIMITS.messageAttachments + 1 }, () => bar),
      }),
    ).rejects.toMatchObject({ data: { error: 'invalid_blocks' } });
    await expect(
      client.chat.postMessage({ channel: 'C_GENERAL', text: 't', attachments: [{ ...bar, color: 'red' }] }),
    ).rejects.toMatchObject({
      data: { response_metadata: { messages: [expect.stringContaining('[json-pointer:/attachments/0/color]')] } },
    });
  });
});

describe("each method's rate tier, per workspace", () => {
  // The workspace clock stands still, so no token comes back while the calls are made.
  let frozen: OfflineSlack;
  beforeAll(async () => {
    const at = Date.now();
    frozen = await startOfflineSlack({ signingSecret: randomBytes(16).toString('hex'), botToken, now: () => at });
  });
  afterAll(() => frozen.close());

  const cases = Object.entries(METHOD_RULES)
    .filter(([method]) => method !== 'chat.postMessage')
    .map(([method, rule]) => ({
      method,
      calls: ('burst' in rule ? (rule as { burst: number }).burst : undefined) ?? rule.perMinute,
    }));

  it.each(cases)(
    '$method: $calls calls at once are answered, the next gets 429 with Retry-After',
    async ({ method, calls }) => {
      if (!frozen.webApi.methods.includes(method))
        return void expect(['conversations.members', 'oauth.v2.access']).toContain(method);
      const raw = new WebClient(botToken, {
        slackApiUrl: frozen.apiUrl,
        logLevel: LogLevel.ERROR,
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
      });
      for (let i = 0; i < calls; i++) {
        // Arguments are not needed: Slack counts the call, whatever it answers.
        await raw
          .apiCall(method, {})
          .catch((error: { code?: string }) => expect(error.code).not.toBe('slack_webapi_rate_limited_error'));
      }
      await expect(raw.apiCall(method, {})).rejects.toMatchObject({
        code: 'slack_webapi_rate_limited_error',
        retryAfter: expect.any(Number),
      });
    },
  );

  it('chat.postMessage: one a second per channel after a burst; another channel is not held back', async () => {
    slack.setRateLimit({ burst: 1, perSecond: 1 });
    await client.chat.postMessage({ channel: 'C_GENERAL', text: 'one' });
    await expect(client.chat.postMessage({ channel: 'C_GENERAL', text: 'two' })).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 1,
    });
    await expect(client.chat.postMessage({ channel: 'C_MARKETING', text: 'elsewhere' })).resolves.toMatchObject({
      ok: true,
    });
  });
});
