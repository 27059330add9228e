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

/** What a refused form showed: its URL again, and the problem beside its field (never the key). */
export interface Refused {
  url: string;
  field: 'url' | 'key';
  problem: string;
}

const KEY_HINT = 'Tried once before it is saved; stored encrypted; only its last four characters are shown.';
const TITLE = { type: 'plain_text', text: 'Connect your analytics' } as const;

/**
 * The "Connect your analytics" modal: the API's base URL (the operator's by default) and the key.
 * A form shown again after a slow check was refused says why in its field's hint.
 */
export function connectModal(defaultUrl: string, refused?: Refused): View {
  const hint = (field: Refused['field'], otherwise?: string) =>
    refused?.field === field
      ? { hint: { type: 'plain_text' as const, text: `⚠️ ${refused.problem}`.slice(0, 2000) } }
      : otherwise
        ? { hint: { type: 'plain_text' as const, text: otherwise } }
        : {};
  return {
    type: 'modal',
    callback_id: CONNECT_VIEW,
    title: TITLE,
    submit: { type: 'plain_text', text: 'Connect' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'input',
        block_id: 'url',
        label: { type: 'plain_text', text: 'API base URL' },
        element: {
          type: 'url_text_input',
          action_id: 'value',
          initial_value: (refused?.url || defaultUrl).slice(0, 3000),
        },
        ...hint('url'),
      },
      {
        type: 'input',
        block_id: 'key',
        label: { type: 'plain_text', text: 'API key' },
        ...hint('key', KEY_HINT),
        element: { type: 'plain_text_input', action_id: 'value', min_length: 8, max_length: 200 },
      },
    ],
  };
}

/** Shown while a slow analytics API is tried with the key. */
export function checkingModal(): View {
  return {
    type: 'modal',
    callback_id: `${CONNECT_VIEW}.checking`,
    title: TITLE,
    close: { type: 'plain_text', text: 'Close' },
    blocks: [
      {
        type: 'section',
        text: mrkdwn('Trying the key with the analytics API… This form shows the outcome when it answers.'),
      },
    ],
  };
}

/** Shown once a slow check has connected the account. */
export function connectedModal(url: string): View {
  return {
    type: 'modal',
    callback_id: `${CONNECT_VIEW}.done`,
    title: TITLE,
    close: { type: 'plain_text', text: 'Done' },
    blocks: [
      {
        type: 'section',
        text: mrkdwn(`Connected to ${escapeMrkdwn(hostOf(url))}. Lookout answers from this account now.`),
      },
    ],
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url.trim()).host;
  } catch {
    return url;
  }
}
