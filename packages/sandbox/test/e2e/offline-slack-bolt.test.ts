/**
 * The offline Slack against a REAL minimal Bolt 5 app: signed slash commands and
 * interactions into Bolt's HTTPReceiver, the app's WebClient and respond() pointed at the
 * offline Slack, everything over real HTTP on port 0.
 */
import { EventEmitter, once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  App,
  HTTPReceiver,
  LogLevel,
  RespondError,
  webApi,
  type BlockAction,
  type ButtonAction,
  type Logger,
  type StaticSelectAction,
  type types,
} from '@slack/bolt';
import { startOfflineSlack, type OfflineSlack } from '../../src/slack/server.js';
import type { Message } from '../../src/slack/workspace.js';

const SIGNING_SECRET = 'offline-slack-e2e-signing-secret';
const BOT_TOKEN = 'xoxb-offline-slack-e2e-token';
// Short of Slack's 3 s, since Bolt's receiver answers for a listener that has not acked by 3,001 ms;
// an ack made at once meets 2 s on a loaded machine too.
const ACK_TIMEOUT_MS = 2000;
const SLOW_ACK_MS = 2500;

type Block = Record<string, unknown>;

const plain = (text: string): Block => ({ type: 'plain_text', text });

function reportBlocks(title: string): types.KnownBlock[] {
  const blocks: Block[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `*${title}*` } },
    {
      type: 'table',
      column_settings: [{ align: 'left' }, { align: 'right' }],
      rows: [
        [
          { type: 'raw_text', text: 'Source' },
          { type: 'raw_text', text: 'Visits' },
        ],
        [
          { type: 'raw_text', text: 'google' },
          { type: 'raw_text', text: '1,204' },
        ],
      ],
    },
    {
      type: 'actions',
      block_id: 'report_actions',
      elements: [
        { type: 'button', action_id: 'next_page', text: plain('Next'), value: 'page:2' },
        { type: 'button', action_id: 'open_filter', text: plain('Filter…'), value: 'filter' },
        { type: 'button', action_id: 'share', text: plain('Post to channel'), value: 'share' },
        {
          type: 'static_select',
          action_id: 'pick_range',
          placeholder: plain('Range'),
          options: [
            { text: plain('Last 7 days'), value: 'last7d' },
            { text: plain('Last 30 days'), value: 'last30d' },
          ],
        },
      ],
    },
  ];
  return blocks as unknown as types.KnownBlock[];
}

function filterView(channel: string): Record<string, unknown> {
  return {
    type: 'modal',
    callback_id: 'filter_modal',
    title: plain('Filter'),
    submit: plain('Apply'),
    close: plain('Cancel'),
    private_metadata: JSON.stringify({ channel }),
    blocks: [
      {
        type: 'input',
        block_id: 'country_block',
        label: plain('Country'),
        element: { type: 'plain_text_input', action_id: 'country', placeholder: plain('e.g. DE') },
      },
      {
        type: 'input',
        block_id: 'range_block',
        label: plain('Range'),
        optional: true,
        element: {
          type: 'static_select',
          action_id: 'range',
          options: [
            { text: plain('Last 7 days'), value: 'last7d' },
            { text: plain('Last 30 days'), value: 'last30d' },
          ],
        },
      },
    ],
  };
}

function wizardView(step: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'modal',
    callback_id: 'wizard',
    notify_on_close: true,
    title: plain(`Wizard ${step}`),
    submit: plain('Next'),
    private_metadata: step,
    blocks: [
      { type: 'section', block_id: 'intro', text: { type: 'mrkdwn', text: `Step *${step}*` } },
      {
        type: 'actions',
        block_id: 'tools',
        elements: [{ type: 'button', action_id: 'wizard_help', text: plain('Help'), value: step }],
      },
      {
        type: 'input',
        block_id: 'name_block',
        label: plain('Name'),
        element: { type: 'plain_text_input', action_id: 'name' },
      },
    ],
    ...extra,
  };
}

/** Bolt's logger, kept quiet; errors are collected for assertions. */
function quietLogger(errors: string[]): Logger {
  let level = LogLevel.ERROR;
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: (...args: unknown[]) => {
      errors.push(args.map(String).join(' '));
    },
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

let slack: OfflineSlack;
let app: App;
let clockOffset = 0;
const boltErrors: string[] = [];
const seen = { commands: 0, actions: 0, submissions: 0 };
const appEvents = new EventEmitter();

function client(
  options: ConstructorParameters<typeof webApi.WebClient>[1] = {},
): InstanceType<typeof webApi.WebClient> {
  return new webApi.WebClient(BOT_TOKEN, { slackApiUrl: slack.apiUrl, logger: quietLogger([]), ...options });
}

async function api(
  method: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${slack.apiUrl}${method}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

async function platformError(promise: Promise<unknown>): Promise<{ code: string; data: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; data: Record<string, unknown> };
  }
  throw new Error('expected the call to fail');
}

/** Messages the app (not Slackbot notices) put into a channel. */
const appMessages = (channel: string): Message[] =>
  slack.workspace.allMessages(channel).filter((m) => m.user === slack.workspace.bot.userId);

beforeAll(async () => {
  slack = await startOfflineSlack({
    signingSecret: SIGNING_SECRET,
    botToken: BOT_TOKEN,
    now: () => Date.now() + clockOffset,
    ackTimeoutMs: ACK_TIMEOUT_MS,
  });
  app = new App({
    receiver: new HTTPReceiver({ signingSecret: SIGNING_SECRET, logger: quietLogger(boltErrors) }),
    token: BOT_TOKEN,
    logger: quietLogger(boltErrors),
    clientOptions: { slackApiUrl: slack.apiUrl },
  });

  app.command('/traffic', async ({ ack, respond, command, client: web }) => {
    seen.commands += 1;
    const text = command.text.trim();
    switch (text) {
      case 'slow':
        await sleep(SLOW_ACK_MS);
        await ack();
        appEvents.emit('slow-acked');
        return;
      case 'quiet':
        await ack();
        return;
      case 'ack-message':
        await ack({ text: 'Working on it…' });
        await respond({ replace_original: true, text: 'Done', blocks: reportBlocks('Done') });
        return;
      case 'ack-in-channel':
        await ack({ response_type: 'in_channel', text: 'Everyone sees this' });
        return;
      case 'bad-blocks':
        await ack();
        try {
          await respond({
            text: 'too long',
            blocks: [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }],
          });
          appEvents.emit('bad-blocks', undefined);
        } catch (error) {
          appEvents.emit('bad-blocks', error);
        }
        return;
      case 'post':
        await ack();
        await web.chat.postMessage({
          channel: command.channel_id,
          text: 'Posted by the app',
          blocks: reportBlocks('Posted by the app'),
        });
        return;
      case 'modal':
        await ack();
        await web.views.open({ trigger_id: command.trigger_id, view: filterView(command.channel_id) as never });
        return;
      default:
        await ack();
        await respond({ text: `Traffic report: ${text}`, blocks: reportBlocks(`Traffic report: ${text}`) });
    }
  });

  app.action<BlockAction<ButtonAction>>('next_page', async ({ ack, respond, action }) => {
    seen.actions += 1;
    await ack();
    await respond({
      replace_original: true,
      text: `Page for ${action.value ?? ''}`,
      blocks: reportBlocks(`Page for ${action.value ?? ''}`),
    });
  });

  app.action<BlockAction<StaticSelectAction>>('pick_range', async ({ ack, respond, action }) => {
    seen.actions += 1;
    await ack();
    await respond({ replace_original: true, text: `Range ${action.selected_option.value}` });
  });

  app.action<BlockAction<ButtonAction>>('share', async ({ ack, respond }) => {
    seen.actions += 1;
    await ack();
    await respond({ response_type: 'in_channel', replace_original: false, text: 'Shared with the channel' });
    await respond({ delete_original: true });
  });

  app.action<BlockAction<ButtonAction>>('open_filter', async ({ ack, body, client: web }) => {
    seen.actions += 1;
    await ack();
    await web.views.open({ trigger_id: body.trigger_id, view: filterView(body.channel?.id ?? '') as never });
  });

  app.view('filter_modal', async ({ ack, view, client: web }) => {
    seen.submissions += 1;
    const country = view.state.values.country_block?.country?.value ?? '';
    if (!/^[A-Z]{2}$/.test(country)) {
      await ack({ response_action: 'errors', errors: { country_block: 'Use a two-letter country code, like DE' } });
      return;
    }
    await ack();
    const { channel } = JSON.parse(view.private_metadata) as { channel: string };
    const range = view.state.values.range_block?.range?.selected_option?.value ?? 'default';
    await web.chat.postMessage({ channel, text: `Filtered to ${country} (${range})` });
  });

  app.command('/wizard', async ({ ack, command, client: web }) => {
    await ack();
    await web.views.open({ trigger_id: command.trigger_id, view: wizardView('1') as never });
  });

  app.view('wizard', async ({ ack, view }) => {
    seen.submissions += 1;
    if (view.private_metadata === '1') await ack({ response_action: 'push', view: wizardView('2') as never });
    else if (view.private_metadata === '2') await ack({ response_action: 'update', view: wizardView('2b') as never });
    else if (view.private_metadata === 'bad')
      await ack({ response_action: 'update', view: wizardView('x'.repeat(30)) as never });
    else await ack({ response_action: 'clear' });
  });

  app.view({ callback_id: 'wizard', type: 'view_closed' }, async ({ ack, body }) => {
    await ack();
    appEvents.emit('wizard-closed', body);
  });

  app.action<BlockAction<ButtonAction>>('wizard_help', async ({ ack, body, client: web }) => {
    await ack();
    const view = body.view;
    if (!view) return;
    await web.views.update({
      view_id: view.id,
      hash: view.hash,
      view: wizardView(`${view.private_metadata} (help)`) as never,
    });
    const stale = await web.views
      .update({ view_id: view.id, hash: view.hash, view: wizardView('stale') as never })
      .catch((e: unknown) => e);
    appEvents.emit('wizard-help', stale);
  });

  const server = (await app.start(0)) as Server;
  slack.setAppUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`);
});

afterAll(async () => {
  await app?.stop();
  await slack?.close();
});

describe('slash commands and respond()', () => {
  it('delivers a signed slash command, records the ack, and shows the response to the invoking user only', async () => {
    const delivery = await slack.slash('#marketing', 'alice', 'sources last7d');
    expect(delivery.status).toBe(200);
    expect(delivery.timedOut).toBe(false);
    expect(delivery.ackMs).toBeGreaterThan(0);
    expect(delivery.payload).toMatchObject({
      command: '/traffic',
      text: 'sources last7d',
      channel_id: 'C_MARKETING',
      channel_name: 'marketing',
      user_id: 'U_ALICE',
      user_name: 'alice',
      team_id: 'T_LOOKOUT',
      team_domain: 'lookout-sandbox',
      api_app_id: 'A_LOOKOUT',
      is_enterprise_install: 'false',
    });
    expect(delivery.payload.response_url).toBe(delivery.responseUrl);
    expect(delivery.payload.trigger_id).toBe(delivery.triggerId);

    const reply = await slack.waitForMessage('C_MARKETING', (m) => m.text === 'Traffic report: sources last7d');
    expect(reply.ephemeralTo).toBe('U_ALICE');
    expect(reply.bot_id).toBe('B_LOOKOUT');
    expect(reply.blocks?.map((b) => b.type)).toEqual(['section', 'table', 'actions']);
    expect(reply.blocks?.every((b) => typeof b.block_id === 'string')).toBe(true);
    expect(slack.messages('#marketing', { user: 'alice' })).toContain(reply);
    expect(slack.messages('#marketing', { user: 'bob' })).not.toContain(reply);
    expect(slack.messages('#marketing')).not.toContain(reply);
    expect(slack.lastMessage('#marketing', 'alice')).toBe(reply);

    // Bolt verified its token with auth.test before it could handle the command.
    expect(slack.webApi.calls.some((c) => c.method === 'auth.test' && c.ok)).toBe(true);
  });

  it('shows a message ack ephemerally, and replace_original replaces it', async () => {
    await slack.slash('#marketing', 'bob', 'ack-message');
    const done = await slack.waitForMessage('C_MARKETING', (m) => m.text === 'Done' && m.ephemeralTo === 'U_BOB');
    expect(done.via).toBe('ack');
    expect(done.updates).toBe(1);
    expect(slack.messages('#marketing', { user: 'bob' }).filter((m) => m.text === 'Working on it…')).toEqual([]);
  });

  it('posts an in_channel ack for everyone', async () => {
    await slack.slash('#general', 'carol', 'ack-in-channel');
    const m = await slack.waitForMessage('C_GENERAL', (x) => x.text === 'Everyone sees this');
    expect(m.ephemeralTo).toBeUndefined();
    expect(slack.messages('#general')).toContain(m);
  });

  it('lets the app post with chat.postMessage through its WebClient', async () => {
    await slack.slash('#security', 'alice', 'post');
    const posted = await slack.waitForMessage('C_SECURITY', (m) => m.text === 'Posted by the app');
    expect(posted.ephemeralTo).toBeUndefined();
    expect(posted.user).toBe('U_LOOKOUT_BOT');
    expect(slack.messages('#security', { user: 'bob' })).toContain(posted);
  });

  it('refuses a response with invalid blocks with 400 and the reason', async () => {
    const before = slack.workspace.allMessages('C_MARKETING').length;
    const failed = once(appEvents, 'bad-blocks');
    await slack.slash('#marketing', 'alice', 'bad-blocks');
    const [error] = (await failed) as [unknown];
    expect(error).toBeInstanceOf(RespondError);
    expect((error as RespondError).statusCode).toBe(400);
    const entry = slack.responseUrls.log.at(-1);
    expect(entry).toMatchObject({
      status: 400,
      error: 'invalid_blocks',
      reasons: ['blocks[0].text.text: must be at most 150 characters'],
    });
    expect(slack.workspace.allMessages('C_MARKETING')).toHaveLength(before);
  });

  it('marks a slow ack as a timeout and tells the user operation_timeout', async () => {
    const acked = once(appEvents, 'slow-acked');
    const delivery = await slack.slash('#marketing', 'carol', 'slow');
    await acked;
    expect(delivery.timedOut).toBe(true);
    expect(delivery.error).toBe('operation_timeout');
    expect(delivery.status).toBe(200);
    expect(delivery.ackMs).toBeGreaterThanOrEqual(ACK_TIMEOUT_MS);
    const notice = slack.lastMessage('#marketing', 'carol');
    expect(notice).toMatchObject({
      user: 'USLACKBOT',
      ephemeralTo: 'U_CAROL',
      text: '/traffic failed with the error "operation_timeout"',
    });
  });
});

describe('response_url', () => {
  it('works 5 times, then answers 404 used_url', async () => {
    const delivery = await slack.slash('#general', 'alice', 'quiet');
    const url = delivery.responseUrl ?? '';
    const post = (text: string) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
    for (let i = 1; i <= 5; i++) {
      const res = await post(`use ${i}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('ok');
    }
    const sixth = await post('use 6');
    expect(sixth.status).toBe(404);
    expect(await sixth.text()).toBe('used_url');
    const seen5 = slack.messages('#general', { user: 'alice' }).filter((m) => m.text.startsWith('use '));
    expect(seen5.map((m) => m.text)).toEqual(['use 1', 'use 2', 'use 3', 'use 4', 'use 5']);
  });

  it('expires after 30 minutes with 404 expired_url', async () => {
    const delivery = await slack.slash('#general', 'alice', 'quiet');
    clockOffset += 31 * 60 * 1000;
    const res = await fetch(delivery.responseUrl ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"text":"late"}',
    });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('expired_url');
  });
});

describe('interactions', () => {
  it('delivers block_actions for a button on an ephemeral message and replaces it in place', async () => {
    await slack.slash('#marketing', 'alice', 'pages');
    const reply = await slack.waitForMessage('C_MARKETING', (m) => m.text === 'Traffic report: pages');
    const visibleBefore = slack.messages('#marketing', { user: 'alice' }).length;

    const delivery = await slack.click(reply, 'next_page');
    expect(delivery.status).toBe(200);
    expect(delivery.kind).toBe('block_actions');
    expect(delivery.payload).toMatchObject({
      type: 'block_actions',
      api_app_id: 'A_LOOKOUT',
      user: { id: 'U_ALICE', username: 'alice', name: 'alice', team_id: 'T_LOOKOUT' },
      team: { id: 'T_LOOKOUT', domain: 'lookout-sandbox' },
      enterprise: null,
      is_enterprise_install: false,
      container: { type: 'message', message_ts: reply.ts, channel_id: 'C_MARKETING', is_ephemeral: true },
      channel: { id: 'C_MARKETING', name: 'marketing' },
      actions: [
        { type: 'button', action_id: 'next_page', block_id: 'report_actions', value: 'page:2', text: plain('Next') },
      ],
    });
    expect(delivery.payload.message).toBeUndefined();
    expect(typeof delivery.payload.response_url).toBe('string');

    await slack.waitFor(() => reply.text === 'Page for page:2');
    expect(reply.updates).toBe(1);
    expect(reply.ephemeralTo).toBe('U_ALICE');
    expect(slack.messages('#marketing', { user: 'alice' })).toHaveLength(visibleBefore);
  });

  it('includes the message for a public message, and replaces that message for everyone', async () => {
    await slack.slash('#security', 'bob', 'post');
    const posted = await slack.waitForMessage('C_SECURITY', (m) => m.text === 'Posted by the app' && m.updates === 0);
    const delivery = await slack.click(posted, 'next_page', undefined, { user: 'bob' });
    expect(delivery.payload).toMatchObject({
      container: { type: 'message', message_ts: posted.ts, is_ephemeral: false },
      message: { ts: posted.ts, text: 'Posted by the app', bot_id: 'B_LOOKOUT' },
      user: { id: 'U_BOB' },
    });
    await slack.waitFor(() => posted.text === 'Page for page:2');
    expect(slack.messages('#security', { user: 'carol' })).toContain(posted);
  });

  it('delivers a static_select choice with selected_option and the message state', async () => {
    await slack.slash('#marketing', 'carol', 'countries');
    const reply = await slack.waitForMessage('C_MARKETING', (m) => m.text === 'Traffic report: countries');
    await expect(slack.select(reply, 'pick_range', 'nope')).rejects.toThrow(/no option "nope"/);
    const delivery = await slack.select(reply, 'pick_range', 'last30d');
    expect(delivery.payload.actions).toEqual([
      expect.objectContaining({
        type: 'static_select',
        action_id: 'pick_range',
        selected_option: { text: plain('Last 30 days'), value: 'last30d' },
      }),
    ]);
    expect(delivery.payload.state).toEqual({
      values: {
        report_actions: {
          pick_range: { type: 'static_select', selected_option: { text: plain('Last 30 days'), value: 'last30d' } },
        },
      },
    });
    await slack.waitFor(() => reply.text === 'Range last30d');
    expect(reply.blocks).toBeUndefined();
  });

  it('posts to the channel and deletes the ephemeral original ("Post to channel")', async () => {
    await slack.slash('#general', 'bob', 'campaigns');
    const reply = await slack.waitForMessage('C_GENERAL', (m) => m.text === 'Traffic report: campaigns');
    await slack.click(reply, 'share');
    const shared = await slack.waitForMessage('C_GENERAL', (m) => m.text === 'Shared with the channel');
    expect(shared.ephemeralTo).toBeUndefined();
    await slack.waitFor(() => slack.workspace.message('C_GENERAL', reply.ts) === undefined);
  });
});

describe('modals', () => {
  it('opens a modal from a button, shows response_action errors, and closes on an empty ack', async () => {
    await slack.slash('#marketing', 'alice', 'browsers');
    const reply = await slack.waitForMessage('C_MARKETING', (m) => m.text === 'Traffic report: browsers');
    await slack.click(reply, 'open_filter');
    const [view] = await slack.waitFor(() =>
      slack.openViews('alice').length === 1 ? slack.openViews('alice') : undefined,
    );
    if (!view) throw new Error('no view');
    expect(view).toMatchObject({ callback_id: 'filter_modal', open: true, user: 'U_ALICE' });

    const refused = await slack.submit(view, { country: 'germany' });
    expect(refused.status).toBe(200);
    expect(refused.json).toEqual({
      response_action: 'errors',
      errors: { country_block: 'Use a two-letter country code, like DE' },
    });
    expect(view.open).toBe(true);
    expect(view.errors).toEqual({ country_block: 'Use a two-letter country code, like DE' });

    const accepted = await slack.submit(view, { country: 'DE', range: 'last30d' });
    expect(accepted.payload).toMatchObject({
      type: 'view_submission',
      user: { id: 'U_ALICE', username: 'alice' },
      view: {
        id: view.id,
        callback_id: 'filter_modal',
        hash: view.hash,
        private_metadata: JSON.stringify({ channel: 'C_MARKETING' }),
        state: {
          values: {
            country_block: { country: { type: 'plain_text_input', value: 'DE' } },
            range_block: {
              range: { type: 'static_select', selected_option: { text: plain('Last 30 days'), value: 'last30d' } },
            },
          },
        },
      },
    });
    expect(view.open).toBe(false);
    expect(slack.openViews('alice')).toEqual([]);
    await slack.waitForMessage('C_MARKETING', (m) => m.text === 'Filtered to DE (last30d)');
  });

  it('will not submit a modal with a required input left empty', async () => {
    await slack.slash('#marketing', 'bob', 'modal');
    const [view] = await slack.waitFor(() =>
      slack.openViews('bob').length === 1 ? slack.openViews('bob') : undefined,
    );
    if (!view) throw new Error('no view');
    const submissions = seen.submissions;
    await expect(slack.submit(view, { range: 'last7d' })).rejects.toThrow(/required/);
    expect(seen.submissions).toBe(submissions);
    await slack.closeView(view);
    expect(slack.openViews('bob')).toEqual([]);
  });

  it('refuses expired, reused and unknown trigger_ids', async () => {
    const web = client();
    const fresh = await slack.slash('#general', 'carol', 'quiet');
    clockOffset += 4000;
    const expired = await platformError(
      web.views.open({ trigger_id: fresh.triggerId ?? '', view: filterView('C_GENERAL') as never }),
    );
    expect(expired.data.error).toBe('expired_trigger_id');

    const used = await slack.slash('#general', 'carol', 'modal');
    await slack.waitFor(() => slack.openViews('carol').length === 1);
    const reused = await platformError(
      web.views.open({ trigger_id: used.triggerId ?? '', view: filterView('C_GENERAL') as never }),
    );
    expect(reused.data.error).toBe('exchanged_trigger_id');

    const unknown = await platformError(
      web.views.open({ trigger_id: '123.456.abc', view: filterView('C_GENERAL') as never }),
    );
    expect(unknown.data.error).toBe('invalid_trigger_id');
  });

  it('refuses an invalid view with invalid_arguments and Slack-style messages', async () => {
    const delivery = await slack.slash('#general', 'alice', 'quiet');
    const bad = { ...filterView('C_GENERAL'), title: plain('A title that is far too long') };
    const error = await platformError(
      client().views.open({ trigger_id: delivery.triggerId ?? '', view: bad as never }),
    );
    expect(error.data.error).toBe('invalid_arguments');
    expect(error.data.response_metadata).toEqual({
      messages: ['[ERROR] must be at most 24 characters [json-pointer:/view/title/text]'],
    });
  });
});

describe('modal stacks', () => {
  it('pushes, updates and clears views as the app answers, and updates a view from a button in it', async () => {
    await slack.slash('#general', 'alice', '', '/wizard');
    const [first] = await slack.waitFor(() =>
      slack.openViews('alice').length === 1 ? slack.openViews('alice') : undefined,
    );
    if (!first) throw new Error('no view');

    const helped = once(appEvents, 'wizard-help');
    const click = await slack.click(first, 'wizard_help');
    expect(click.payload).toMatchObject({
      type: 'block_actions',
      container: { type: 'view', view_id: first.id },
      view: { id: first.id, callback_id: 'wizard', private_metadata: '1' },
      actions: [{ action_id: 'wizard_help', block_id: 'tools', value: '1' }],
    });
    expect(click.payload.response_url).toBeUndefined();
    const [stale] = (await helped) as [{ data?: { error?: string } }];
    expect(stale.data?.error).toBe('hash_conflict');
    expect(first.title).toMatchObject({ text: 'Wizard 1 (help)' });
    expect(first.private_metadata).toBe('1 (help)');

    // Cancel (the app hears view_closed), then start over to walk the stack.
    await slack.closeView(first);
    await slack.slash('#general', 'alice', '', '/wizard');
    const [root] = await slack.waitFor(() =>
      slack.openViews('alice').length === 1 ? slack.openViews('alice') : undefined,
    );
    if (!root) throw new Error('no view');

    const pushed = await slack.submit(root, { name: 'Ada' });
    expect(pushed.json).toMatchObject({ response_action: 'push' });
    const stack = slack.openViews('alice');
    expect(stack.map((v) => v.private_metadata)).toEqual(['1', '2']);
    expect(stack[1]).toMatchObject({ root_view_id: root.id, previous_view_id: root.id });

    const top = stack[1];
    if (!top) throw new Error('no pushed view');
    await slack.submit(top, { name: 'Grace' });
    expect(slack.openViews('alice').map((v) => v.private_metadata)).toEqual(['1', '2b']);
    expect(top.id).toBe(stack[1]?.id);

    await slack.submit(top, { name: 'Linus' });
    expect(slack.openViews('alice')).toEqual([]);
  });

  it('keeps the modal open and records the reason when response_action update carries an invalid view', async () => {
    await slack.slash('#general', 'bob', '', '/wizard');
    const [view] = await slack.waitFor(() =>
      slack.openViews('bob').length === 1 ? slack.openViews('bob') : undefined,
    );
    if (!view) throw new Error('no view');
    view.private_metadata = 'bad';
    const delivery = await slack.submit(view, { name: 'x' });
    expect(delivery.error).toBe('invalid_arguments');
    expect(delivery.reasons).toEqual([`view.title.text: must be at most 24 characters`]);
    expect(view.open).toBe(true);

    const closed = once(appEvents, 'wizard-closed');
    const closing = await slack.closeView(view);
    expect(closing?.status).toBe(200);
    const [body] = (await closed) as [{ type: string; view: { id: string } }];
    expect(body).toMatchObject({ type: 'view_closed', view: { id: view.id } });
  });
});

describe('request signatures', () => {
  it('a forged signature gets 401 and changes nothing', async () => {
    const commands = seen.commands;
    const before = appMessages('C_MARKETING').length;
    const delivery = await slack.slash('#marketing', 'alice', 'sources', '/traffic', {
      signingSecret: 'not-the-signing-secret',
    });
    expect(delivery.status).toBe(401);
    expect(delivery.error).toBe('dispatch_failed');
    await sleep(100);
    expect(seen.commands).toBe(commands);
    expect(appMessages('C_MARKETING')).toHaveLength(before);
    expect(slack.lastMessage('#marketing', 'alice')).toMatchObject({
      user: 'USLACKBOT',
      text: '/traffic failed with the error "dispatch_failed"',
    });
  });

  it('a timestamp over 5 minutes old gets 401', async () => {
    const commands = seen.commands;
    const stale = Math.floor(Date.now() / 1000) - 5 * 60 - 1;
    const delivery = await slack.slash('#marketing', 'alice', 'sources', '/traffic', { timestampSec: stale });
    expect(delivery.status).toBe(401);
    const recent = Math.floor(Date.now() / 1000) - 60;
    const ok = await slack.slash('#marketing', 'alice', 'quiet', '/traffic', { timestampSec: recent });
    expect(ok.status).toBe(200);
    expect(seen.commands).toBe(commands + 1);
  });

  it('a forged interaction gets 401 and the action never runs', async () => {
    await slack.slash('#marketing', 'alice', 'devices');
    const reply = await slack.waitForMessage('C_MARKETING', (m) => m.text === 'Traffic report: devices');
    const actions = seen.actions;
    const delivery = await slack.click(reply, 'next_page', undefined, { signingSecret: 'forged' });
    expect(delivery.status).toBe(401);
    await sleep(100);
    expect(seen.actions).toBe(actions);
    expect(reply.updates).toBe(0);
  });
});

describe('Web API', () => {
  it('checks the token and the method name', async () => {
    expect((await api('auth.test', '')).json).toEqual({ ok: false, error: 'not_authed' });
    expect((await api('auth.test', '', { authorization: 'Bearer xoxb-wrong' })).json).toEqual({
      ok: false,
      error: 'invalid_auth',
    });
    expect((await api('auth.test', `token=${BOT_TOKEN}`)).json).toMatchObject({
      ok: true,
      team_id: 'T_LOOKOUT',
      user_id: 'U_LOOKOUT_BOT',
      bot_id: 'B_LOOKOUT',
    });
    expect((await api('chat.fly', '', { authorization: `Bearer ${BOT_TOKEN}` })).json).toMatchObject({
      ok: false,
      error: 'unknown_method',
    });
  });

  it('accepts JSON bodies', async () => {
    const res = await fetch(`${slack.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${BOT_TOKEN}` },
      body: JSON.stringify({ channel: '#general', text: 'json body', blocks: [{ type: 'divider' }] }),
    });
    const json = (await res.json()) as { ok: boolean; channel: string; ts: string };
    expect(json).toMatchObject({ ok: true, channel: 'C_GENERAL' });
    expect(slack.workspace.message('C_GENERAL', json.ts)?.text).toBe('json body');
  });

  it('refuses invalid blocks from chat.postMessage with invalid_blocks and the reasons', async () => {
    const error = await platformError(
      client().chat.postMessage({
        channel: 'C_GENERAL',
        text: 'x',
        blocks: [
          {
            type: 'actions',
            elements: [{ type: 'button', action_id: 'a', text: { type: 'plain_text', text: 'b'.repeat(76) } }],
          },
        ],
      }),
    );
    expect(error.code).toBe(webApi.ErrorCode.PlatformError);
    expect(error.data).toMatchObject({
      ok: false,
      error: 'invalid_blocks',
      errors: ['blocks[0].elements[0].text.text: must be at most 75 characters'],
      response_metadata: {
        messages: ['[ERROR] must be at most 75 characters [json-pointer:/blocks/0/elements/0/text/text]'],
      },
    });
  });

  it('refuses posting to an archived channel with is_archived', async () => {
    const web = client();
    expect((await platformError(web.chat.postMessage({ channel: 'C_ARCHIVED', text: 'hello' }))).data.error).toBe(
      'is_archived',
    );
    const channel = slack.workspace.addChannel({ name: 'soon-archived' });
    await web.chat.postMessage({ channel: channel.id, text: 'before' });
    slack.workspace.archiveChannel(channel.id);
    expect((await platformError(web.chat.postMessage({ channel: channel.id, text: 'after' }))).data.error).toBe(
      'is_archived',
    );
    expect((await platformError(web.chat.postMessage({ channel: 'C_NOPE', text: 'x' }))).data.error).toBe(
      'channel_not_found',
    );
  });

  it('rate-limits chat.postMessage per channel with 429 and Retry-After', async () => {
    const channel = slack.workspace.addChannel({ name: 'rate-limited' });
    const rejecting = client({ rejectRateLimitedCalls: true });
    for (let i = 0; i < 5; i++) await rejecting.chat.postMessage({ channel: channel.id, text: `burst ${i}` });

    const limited = await rejecting.chat
      .postMessage({ channel: channel.id, text: 'one too many' })
      .catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(webApi.WebAPIRateLimitedError);
    expect((limited as InstanceType<typeof webApi.WebAPIRateLimitedError>).code).toBe(
      webApi.ErrorCode.RateLimitedError,
    );
    expect((limited as InstanceType<typeof webApi.WebAPIRateLimitedError>).retryAfter).toBe(1);

    const raw = await api('chat.postMessage', `channel=${channel.id}&text=raw`, {
      authorization: `Bearer ${BOT_TOKEN}`,
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('1');
    expect(raw.json).toEqual({ ok: false, error: 'ratelimited' });

    // Other channels have their own bucket.
    await rejecting.chat.postMessage({ channel: 'C_GENERAL', text: 'elsewhere' });

    // Without rejectRateLimitedCalls the WebClient waits Retry-After and succeeds.
    const started = Date.now();
    const retried = await client({ retryConfig: { retries: 3, minTimeout: 10, maxTimeout: 50 } }).chat.postMessage({
      channel: channel.id,
      text: 'after waiting',
    });
    expect(retried.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(slack.messages(channel.id).map((m) => m.text)).toEqual([
      'burst 0',
      'burst 1',
      'burst 2',
      'burst 3',
      'burst 4',
      'after waiting',
    ]);
  });

  it('injects failures with failNext', async () => {
    const web = client({ rejectRateLimitedCalls: true });
    slack.failNext('chat.postMessage', 'fatal_error');
    expect((await platformError(web.chat.postMessage({ channel: 'C_GENERAL', text: 'x' }))).data.error).toBe(
      'fatal_error',
    );
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 7 });
    const limited = await web.chat.postMessage({ channel: 'C_GENERAL', text: 'x' }).catch((e: unknown) => e);
    expect((limited as InstanceType<typeof webApi.WebAPIRateLimitedError>).retryAfter).toBe(7);
    expect((await web.chat.postMessage({ channel: 'C_GENERAL', text: 'fine again' })).ok).toBe(true);
  });

  it('threads, updates, deletes and reads back', async () => {
    const web = client();
    const parent = await web.chat.postMessage({ channel: 'C_SECURITY', text: 'Threat alert' });
    const reply = await web.chat.postMessage({ channel: 'C_SECURITY', text: 'Seen again', thread_ts: parent.ts ?? '' });
    const stored = slack.workspace.message('C_SECURITY', parent.ts ?? '');
    expect(stored).toMatchObject({ reply_count: 1, thread_ts: parent.ts, latest_reply: reply.ts });
    expect(slack.thread('C_SECURITY', parent.ts ?? '').map((m) => m.text)).toEqual(['Threat alert', 'Seen again']);
    expect(slack.messages('#security').some((m) => m.ts === reply.ts)).toBe(false);
    const replies = await web.conversations.replies({ channel: 'C_SECURITY', ts: parent.ts ?? '' });
    expect(replies.messages?.map((m) => m.text)).toEqual(['Threat alert', 'Seen again']);

    await web.chat.update({ channel: 'C_SECURITY', ts: parent.ts ?? '', text: 'Threat alert (2 sightings)' });
    expect(stored).toMatchObject({ text: 'Threat alert (2 sightings)', updates: 1 });
    expect(
      (await platformError(web.chat.update({ channel: 'C_SECURITY', ts: '1.000001', text: 'x' }))).data.error,
    ).toBe('message_not_found');

    const link = await web.chat.getPermalink({ channel: 'C_SECURITY', message_ts: parent.ts ?? '' });
    expect(link.permalink).toBe(`${slack.url}/archives/C_SECURITY/p${(parent.ts ?? '').replace('.', '')}`);

    await web.chat.delete({ channel: 'C_SECURITY', ts: reply.ts ?? '' });
    expect(slack.workspace.message('C_SECURITY', reply.ts ?? '')).toBeUndefined();
    expect(stored?.reply_count).toBe(0);

    const eph = await web.chat.postEphemeral({ channel: 'C_SECURITY', user: 'U_BOB', text: 'Only for Bob' });
    expect(slack.messages('#security', { user: 'bob' }).find((m) => m.ts === eph.message_ts)?.text).toBe(
      'Only for Bob',
    );
    expect(slack.messages('#security', { user: 'alice' }).some((m) => m.ts === eph.message_ts)).toBe(false);

    const history = await web.conversations.history({ channel: 'C_SECURITY', limit: 1 });
    expect(history.messages?.[0]?.ts).toBe(parent.ts);
  });

  it('answers conversations.info, conversations.join and users.info', async () => {
    const web = client();
    const info = await web.conversations.info({ channel: 'C_ARCHIVED' });
    expect(info.channel).toMatchObject({
      id: 'C_ARCHIVED',
      name: 'old-news',
      is_channel: true,
      is_archived: true,
      is_member: false,
    });
    const fresh = slack.workspace.addChannel({ name: 'growth', botIsMember: false });
    expect((await web.conversations.join({ channel: fresh.id })).channel?.is_member).toBe(true);
    const bob = await web.users.info({ user: 'U_BOB' });
    expect(bob.user).toMatchObject({ id: 'U_BOB', name: 'bob', tz: 'America/New_York', is_bot: false });
    expect([-18000, -14400]).toContain(bob.user?.tz_offset);
    const carol = await web.users.info({ user: 'U_CAROL' });
    expect(carol.user).toMatchObject({ tz: 'UTC', tz_offset: 0 });
    expect((await platformError(web.users.info({ user: 'U_NOBODY' }))).data.error).toBe('user_not_found');
  });
});

describe('Bolt', () => {
  it('logged no errors except for the requests it was meant to refuse', () => {
    const unexpected = boltErrors.filter((e) => !/signature|timestamp|authenticity|verif|not acknowledged/i.test(e));
    expect(unexpected).toEqual([]);
  });
});
