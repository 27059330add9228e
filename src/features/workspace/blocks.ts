import type { KnownBlock, View } from '@slack/types';
import { escapeMrkdwn } from '../../platform/slack/kit/escape.js';
import { mrkdwn } from '../../platform/slack/kit/limits.js';

export const CONNECT_VIEW = 'workspace.connect';
export const ACTIONS = {
  connect: 'workspace.connect.open',
  disconnect: 'workspace.disconnect',
  purge: 'workspace.purge',
} as const;

const date = (d: Date) => d.toISOString().slice(0, 10);

/** What the Home shows of a connection: never its key. */
export interface ConnectionShown {
  baseUrl: string;
  last4: string;
  connectedBy: string;
  connectedAt: Date;
}

/** The Home's section on the workspace's analytics connection; `admin`: may change it. */
export function connectionSection(c: ConnectionShown | undefined, admin: boolean): KnownBlock[] {
  const said = c
    ? `*Analytics:* connected to ${escapeMrkdwn(new URL(c.baseUrl).host)} with the key ending …${escapeMrkdwn(c.last4)}, by <@${c.connectedBy}> on ${date(c.connectedAt)}.`
    : admin
      ? '*Analytics:* not connected yet. Connect your analytics account so that /traffic, digests, watches and alerts can answer.'
      : '*Analytics:* not connected yet. A workspace admin connects it here.';
  const blocks: KnownBlock[] = [{ type: 'section', block_id: 'workspace', text: mrkdwn(said) }];
  if (!admin) return blocks;
  blocks.push({
    type: 'actions',
    block_id: 'workspace.actions',
    elements: [
      {
        type: 'button',
        action_id: ACTIONS.connect,
        text: { type: 'plain_text', text: c ? 'Replace the key' : 'Connect your analytics' },
        ...(c ? {} : { style: 'primary' as const }),
      },
      ...(c
        ? [
            {
              type: 'button' as const,
              action_id: ACTIONS.disconnect,
              style: 'danger' as const,
              text: { type: 'plain_text' as const, text: 'Disconnect' },
              confirm: {
                title: { type: 'plain_text' as const, text: 'Disconnect analytics?' },
                text: mrkdwn(
                  'Lookout stops answering here until someone connects an account again. Its key is deleted.',
                ),
                confirm: { type: 'plain_text' as const, text: 'Disconnect' },
                deny: { type: 'plain_text' as const, text: 'Keep it' },
              },
            },
          ]
        : []),
      {
        type: 'button',
        action_id: ACTIONS.purge,
        style: 'danger',
        text: { type: 'plain_text', text: 'Delete this workspace’s data' },
        confirm: {
          title: { type: 'plain_text', text: 'Delete everything?' },
          text: mrkdwn(
            'Every digest, watch, alert setting and alert of this workspace, and its analytics connection, are deleted now. This cannot be undone.',
          ),
          confirm: { type: 'plain_text', text: 'Delete' },
          deny: { type: 'plain_text', text: 'Cancel' },
        },
      },
    ],
  });
  return blocks;
}

/** The "Connect your analytics" modal: the API's base URL (the operator's by default) and the key. */
export function connectModal(defaultUrl: string): View {
  return {
    type: 'modal',
    callback_id: CONNECT_VIEW,
    title: { type: 'plain_text', text: 'Connect your analytics' },
    submit: { type: 'plain_text', text: 'Connect' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'input',
        block_id: 'url',
        label: { type: 'plain_text', text: 'API base URL' },
        element: { type: 'url_text_input', action_id: 'value', initial_value: defaultUrl },
      },
      {
        type: 'input',
        block_id: 'key',
        label: { type: 'plain_text', text: 'API key' },
        hint: {
          type: 'plain_text',
          text: 'Tried once before it is saved; stored encrypted; only its last four characters are shown.',
        },
        element: { type: 'plain_text_input', action_id: 'value', min_length: 8, max_length: 200 },
      },
    ],
  };
}
