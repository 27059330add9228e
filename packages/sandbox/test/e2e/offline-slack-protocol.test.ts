/**
 * The offline Slack's payloads, one kind at a time, against the fields Slack documents
 * for it (docs.slack.dev: slash commands, block_actions, view_submission, view_closed).
 * A bare HTTP server plays the app, so nothing of Lookout or Bolt smooths anything over:
 * each request is checked for its signature and parsed with a strict-enough zod schema.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startOfflineSlack, type OfflineSlack } from '../../src/slack/index.js';
import { computeSignature } from '../../src/slack/signing.js';

const signingSecret = 'protocol-test-signing-secret';
const botToken = 'xoxb-protocol-test';

const id = z.string().min(1);
const user = z.object({ id, username: z.string(), name: z.string(), team_id: id });
const team = z.object({ id, domain: z.string() });
const stateValues = z.record(z.string(), z.record(z.string(), z.object({ type: z.string() }).loose()));
const view = z
  .object({
    id,
    team_id: id,
    type: z.literal('modal'),
    callback_id: z.string(),
    private_metadata: z.string(),
    hash: z.string(),
    state: z.object({ values: stateValues }),
    blocks: z.array(z.object({ type: z.string() }).loose()),
    root_view_id: id,
    app_id: id,
    bot_id: id,
    previous_view_id: z.string().nullable(),
  })
  .loose();
const action = z
  .object({ action_id: id, block_id: id, type: z.string(), action_ts: z.string().regex(/^\d+\.\d+$/) })
  .loose();

const SCHEMAS = {
  slash_command: z.object({
    token: z.string(),
    team_id: id,
    team_domain: z.string(),
    channel_id: id,
    channel_name: z.string(),
    user_id: id,
    user_name: z.string(),
    command: z.string().startsWith('/'),
    text: z.string(),
    api_app_id: id,
    is_enterprise_install: z.enum(['true', 'false']),
    response_url: z.url(),
    trigger_id: id,
  }),
  block_actions_message: z.object({
    type: z.literal('block_actions'),
    user,
    api_app_id: id,
    token: z.string(),
    trigger_id: id,
    team,
    enterprise: z.null(),
    is_enterprise_install: z.boolean(),
    container: z.object({
      type: z.literal('message'),
      message_ts: z.string(),
      channel_id: id,
      is_ephemeral: z.boolean(),
    }),
    channel: z.object({ id, name: z.string() }),
    state: z.object({ values: stateValues }),
    response_url: z.url(),
    actions: z.array(action).length(1),
    message: z
      .object({
        ts: z.string(),
        type: z.literal('message'),
        blocks: z.array(z.object({ type: z.string(), block_id: id }).loose()),
      })
      .loose()
      .optional(),
  }),
  block_actions_view: z.object({
    type: z.literal('block_actions'),
    user,
    api_app_id: id,
    token: z.string(),
    trigger_id: id,
    team,
    enterprise: z.null(),
    is_enterprise_install: z.boolean(),
    container: z.object({ type: z.literal('view'), view_id: id }),
    view,
    actions: z.array(action).length(1),
  }),
  view_submission: z.object({
    type: z.literal('view_submission'),
    team,
    user,
    api_app_id: id,
    token: z.string(),
    trigger_id: id,
    view,
    response_urls: z.array(z.unknown()),
    is_enterprise_install: z.boolean(),
    enterprise: z.null(),
  }),
  view_closed: z.object({
    type: z.literal('view_closed'),
    team,
    user,
    api_app_id: id,
    token: z.string(),
    view,
    is_cleared: z.boolean(),
    is_enterprise_install: z.boolean(),
    enterprise: z.null(),
  }),
};

/** The app's side: every request, its signature checked, its body decoded. */
interface Received {
  signed: boolean;
  contentType: string;
  form: Record<string, string>;
  payload?: Record<string, unknown>;
}

let slack: OfflineSlack;
let app: Server;
const received: Received[] = [];
let answer: (r: Received) => unknown = () => ({});

async function web(method: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fetch(`${slack.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${botToken}`, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  app = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const ts = String(req.headers['x-slack-request-timestamp']);
      const form = Object.fromEntries(new URLSearchParams(raw));
      const r: Received = {
        signed:
          req.headers['x-slack-signature'] === computeSignature(signingSecret, raw, ts) &&
          Math.abs(Date.now() / 1000 - Number(ts)) < 300,
        contentType: String(req.headers['content-type']),
        form,
        ...(form.payload ? { payload: JSON.parse(form.payload) as Record<string, unknown> } : {}),
      };
      received.push(r);
      const body = answer(r);
      res.writeHead(200, { 'content-type': 'application/json' }).end(body === undefined ? '' : JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  slack = await startOfflineSlack({
    signingSecret,
    botToken,
    appUrl: `http://127.0.0.1:${(app.address() as AddressInfo).port}/slack/events`,
  });
});
afterAll(async () => {
  await slack?.close();
  await new Promise((r) => app?.close(r));
});

const last = () => received.at(-1)!;

const MESSAGE = {
  response_type: 'in_channel',
  text: 'pick',
  blocks: [
    { type: 'section', text: { type: 'mrkdwn', text: 'One' } },
    {
      type: 'actions',
      block_id: 'first',
      elements: [
        {
          type: 'button',
          action_id: 'go',
          value: 'one',
          text: { type: 'plain_text', text: 'Go' },
          confirm: {
            title: { type: 'plain_text', text: 'Sure?' },
            text: { type: 'plain_text', text: 'Really' },
            confirm: { type: 'plain_text', text: 'Yes' },
            deny: { type: 'plain_text', text: 'No' },
          },
        },
        {
          type: 'static_select',
          action_id: 'size',
          options: [
            { text: { type: 'plain_text', text: 'S' }, value: 's' },
            { text: { type: 'plain_text', text: 'L' }, value: 'l' },
          ],
        },
      ],
    },
    {
      type: 'actions',
      block_id: 'second',
      elements: [{ type: 'button', action_id: 'go', value: 'two', text: { type: 'plain_text', text: 'Go' } }],
    },
  ],
};

describe('the offline Slack speaks Slack: one documented payload kind at a time', () => {
  let posted: { channel: string; ts: string };

  it('slash_command: a signed form with every documented field', async () => {
    answer = () => MESSAGE;
    const delivery = await slack.slash('C_GENERAL', 'U_ALICE', 'hello there');
    expect(delivery.status).toBe(200);
    expect(last().signed).toBe(true);
    expect(last().contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(SCHEMAS.slash_command.parse(last().form)).toMatchObject({
      command: '/traffic',
      text: 'hello there',
      channel_id: 'C_GENERAL',
      user_id: 'U_ALICE',
    });
    const message = await slack.waitFor(() => slack.messages('C_GENERAL').find((m) => m.text === 'pick'));
    posted = { channel: 'C_GENERAL', ts: message.ts };
  });

  it('block_actions from a message: the touched element exactly (block_id, action_id, value), the container, the message and its state', async () => {
    answer = () => ({});
    await slack.click(posted, 'go', undefined, { blockId: 'second' });
    const payload = SCHEMAS.block_actions_message.parse(last().payload);
    expect(last().signed).toBe(true);
    expect(payload.actions[0]).toMatchObject({
      block_id: 'second',
      action_id: 'go',
      value: 'two',
      type: 'button',
      text: { type: 'plain_text', text: 'Go' },
    });
    expect(payload.container).toEqual({
      type: 'message',
      message_ts: posted.ts,
      channel_id: 'C_GENERAL',
      is_ephemeral: false,
    });
    expect(payload.message?.blocks.map((b) => b.block_id)).toEqual([expect.any(String), 'first', 'second']);

    await slack.select(posted, 'size', 'l', { blockId: 'first' });
    const select = SCHEMAS.block_actions_message.parse(last().payload);
    expect(select.actions[0]).toMatchObject({
      block_id: 'first',
      action_id: 'size',
      type: 'static_select',
      selected_option: { value: 'l', text: { type: 'plain_text', text: 'L' } },
    });
    expect(select.state.values).toEqual({
      first: {
        size: { type: 'static_select', selected_option: { value: 'l', text: { type: 'plain_text', text: 'L' } } },
      },
    });

    // A button behind a confirm dialog: the person said yes, so the action arrives, without the dialog in it.
    await slack.click(posted, 'go', undefined, { blockId: 'first' });
    const confirmed = SCHEMAS.block_actions_message.parse(last().payload).actions[0]!;
    expect(confirmed).toMatchObject({ block_id: 'first', value: 'one', action_id: 'go' });
    expect(confirmed).not.toHaveProperty('confirm');
  });

  it('block_actions from a modal, view_submission with state.values by block and action, and view_closed', async () => {
    answer = () => ({});
    const trigger = String(SCHEMAS.block_actions_message.parse(last().payload).trigger_id);
    const opened = await web('views.open', {
      trigger_id: trigger,
      view: {
        type: 'modal',
        callback_id: 'form',
        private_metadata: '{"k":1}',
        notify_on_close: true,
        title: { type: 'plain_text', text: 'Form' },
        submit: { type: 'plain_text', text: 'Save' },
        blocks: [
          {
            type: 'input',
            block_id: 'name_block',
            label: { type: 'plain_text', text: 'Name' },
            element: { type: 'plain_text_input', action_id: 'name' },
          },
          {
            type: 'actions',
            block_id: 'tools',
            elements: [{ type: 'button', action_id: 'help', value: 'h', text: { type: 'plain_text', text: 'Help' } }],
          },
        ],
      },
    });
    expect(opened.ok).toBe(true);
    const modal = slack.openViews('U_ALICE').at(-1)!;

    await slack.click(modal, 'help');
    const inView = SCHEMAS.block_actions_view.parse(last().payload);
    expect(inView.container).toEqual({ type: 'view', view_id: modal.id });
    expect(inView.actions[0]).toMatchObject({ block_id: 'tools', action_id: 'help', value: 'h' });
    expect(last().payload).not.toHaveProperty('response_url');

    answer = () => ({ response_action: 'errors', errors: { name_block: 'Try again' } });
    await slack.submit(modal, { name: 'x' });
    const refused = SCHEMAS.view_submission.parse(last().payload);
    expect(refused.view.state.values).toEqual({ name_block: { name: { type: 'plain_text_input', value: 'x' } } });
    expect(refused.view).toMatchObject({
      callback_id: 'form',
      private_metadata: '{"k":1}',
      id: modal.id,
      root_view_id: modal.id,
    });
    expect(slack.openViews('U_ALICE').at(-1)?.id).toBe(modal.id);

    answer = () => ({});
    await slack.closeView(modal);
    const closed = SCHEMAS.view_closed.parse(last().payload);
    expect(closed.is_cleared).toBe(false);
    expect(closed.view.id).toBe(modal.id);

    // A second modal, opened from the click inside the first, is submitted and closes.
    expect(
      (
        await web('views.open', {
          trigger_id: inView.trigger_id,
          view: {
            type: 'modal',
            callback_id: 'again',
            title: { type: 'plain_text', text: 'Again' },
            submit: { type: 'plain_text', text: 'Save' },
            blocks: [
              {
                type: 'input',
                block_id: 'b',
                label: { type: 'plain_text', text: 'Name' },
                element: { type: 'plain_text_input', action_id: 'a' },
              },
            ],
          },
        })
      ).ok,
    ).toBe(true);
    const second = slack.openViews('U_ALICE').at(-1)!;
    await slack.submit(second, { a: 'Ada' });
    expect(SCHEMAS.view_submission.parse(last().payload).view.state.values).toEqual({
      b: { a: { type: 'plain_text_input', value: 'Ada' } },
    });
    expect(slack.openViews('U_ALICE')).toEqual([]);
    expect(received.every((r) => r.signed)).toBe(true);
  });

  it("an input block's element sends block_actions only with dispatch_action, and views.update keeps the entries whose block and action ids stay", async () => {
    answer = () => ({});
    await slack.click(posted, 'go', undefined, { blockId: 'second' });
    const trigger = String(SCHEMAS.block_actions_message.parse(last().payload).trigger_id);
    const select = (block: string, dispatch: boolean) => ({
      type: 'input',
      block_id: block,
      ...(dispatch ? { dispatch_action: true } : {}),
      label: { type: 'plain_text', text: block },
      element: {
        type: 'static_select',
        action_id: block,
        options: [
          { text: { type: 'plain_text', text: 'One' }, value: '1' },
          { text: { type: 'plain_text', text: 'Two' }, value: '2' },
        ],
      },
    });
    const note = {
      type: 'input',
      block_id: 'note',
      label: { type: 'plain_text', text: 'Note' },
      element: { type: 'plain_text_input', action_id: 'note' },
    };
    const form = (extra: unknown[]) => ({
      type: 'modal',
      callback_id: 'kinds',
      title: { type: 'plain_text', text: 'Kinds' },
      submit: { type: 'plain_text', text: 'Save' },
      blocks: [select('kind', true), select('quiet', false), note, ...extra],
    });
    expect((await web('views.open', { trigger_id: trigger, view: form([]) })).ok).toBe(true);
    const modal = slack.openViews('U_ALICE').at(-1)!;
    const sent = received.length;
    // Without dispatch_action Slack keeps the pick for the submission and tells the app nothing.
    await expect(slack.select(modal, 'quiet', '2')).rejects.toThrow(/without dispatch_action/);
    expect(received.length).toBe(sent);

    slack.workspace.setViewState(modal.id, 'note', 'note', { type: 'plain_text_input', value: 'kept' });
    await slack.select(modal, 'kind', '2');
    const picked = SCHEMAS.block_actions_view.parse(last().payload);
    expect(picked.actions[0]).toMatchObject({ block_id: 'kind', action_id: 'kind', selected_option: { value: '2' } });
    expect(picked.view.state.values.note).toEqual({ note: { type: 'plain_text_input', value: 'kept' } });

    const updated = await web('views.update', {
      view_id: modal.id,
      hash: picked.view.hash,
      view: form([select('more', false)]),
    });
    expect(updated.ok).toBe(true);
    expect((await web('views.update', { view_id: modal.id, hash: picked.view.hash, view: form([]) })).error).toBe(
      'hash_conflict',
    );
    expect(
      slack
        .openViews('U_ALICE')
        .at(-1)!
        .blocks.map((b) => b.block_id),
    ).toEqual(['kind', 'quiet', 'note', 'more']);
    await slack.submit(modal, { quiet: '2', more: '1' });
    expect(SCHEMAS.view_submission.parse(last().payload).view.state.values).toMatchObject({
      kind: { kind: { selected_option: { value: '2' } } },
      quiet: { quiet: { selected_option: { value: '2' } } },
      note: { note: { value: 'kept' } },
      more: { more: { selected_option: { value: '1' } } },
    });
  });
});
