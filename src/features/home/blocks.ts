import type { ActionsBlock, Button, ContextBlock, KnownBlock, SectionBlock } from '@slack/types';
import { durationInWords, formatCount } from '../../kernel/format.js';
import { CHANNEL_ID, USER_ID } from '../../kernel/text.js';
import { escapeMrkdwn } from '../../platform/slack/kit/escape.js';
import { LIMITS, mrkdwn, plainText } from '../../platform/slack/kit/limits.js';
import type { SlackMessage } from '../../platform/slack/kit/messages.js';

/** Home buttons that act on one row (their value is its id), and those that start something. */
export const HOME_ACTIONS = {
  pauseDigest: 'home.digest.pause',
  resumeDigest: 'home.digest.resume',
  previewDigest: 'home.digest.preview',
  pauseWatch: 'home.watch.pause',
  resumeWatch: 'home.watch.resume',
  muteWatch: 'home.watch.mute',
  unmuteWatch: 'home.watch.unmute',
  previewWatch: 'home.watch.preview',
  retry: 'home.delivery.retry',
} as const;
export type HomeRowAction = keyof typeof HOME_ACTIONS;

export const HOME_START = {
  newDigest: 'home.digest.new',
  /** A channels_select: threat alerts on in the chosen channel. */
  alertsOn: 'home.alerts.on',
  /** Value: the channel id. */
  alertsOff: 'home.alerts.off',
  /** Value: `<channel id> <visitor id>`. */
  muteAlert: 'home.alert.mute',
  unmuteAlert: 'home.alert.unmute',
} as const;

/** The block whose text is a button's outcome; left out of the view's hash, so a refresh does not wipe it at once. */
export const NOTICE_BLOCK = 'notice';

/** What the last button did, or why it did nothing: the Home's own words, or the answer a click got (kit/messages.ts). */
export type HomeNotice = { text: string; ok: boolean } | { message: SlackMessage };

/** Whether a block of the Home is (part of) its notice. */
export function isNotice(block: KnownBlock): boolean {
  return block.block_id === NOTICE_BLOCK || (block.block_id?.startsWith(`${NOTICE_BLOCK}.`) ?? false);
}

/** A notice's blocks: the Home's words after their mark, or an answer's sections and context (its buttons and tables left out). */
export function noticeBlocks(notice: HomeNotice | undefined): KnownBlock[] {
  if (!notice) return [];
  if ('text' in notice)
    return [
      {
        type: 'section',
        block_id: NOTICE_BLOCK,
        text: mrkdwn(`${notice.ok ? ':white_check_mark:' : ':warning:'} ${escapeMrkdwn(notice.text)}`),
      },
    ];
  return notice.message.blocks
    .filter((b): b is SectionBlock | ContextBlock => b.type === 'section' || b.type === 'context')
    .slice(0, 3)
    .map((b, i) => ({ ...b, block_id: i === 0 ? NOTICE_BLOCK : `${NOTICE_BLOCK}.${i}` }));
}

/** How many of each kind the Home tab lists; the rest are counted, with the command that lists them all. */
export const HOME_SHOWN = 10;

export interface HomeView {
  digests: {
    id: number;
    channelId: string;
    reports: string[];
    schedule: string;
    nextRun?: string;
    lastRun?: string;
    paused: boolean;
    attention?: string;
  }[];
  /** `alerts`: how often it alerted in the last 30 days (or since it was added), in words. */
  watches: {
    id: number;
    title: string;
    channelId: string;
    state: string;
    alerts: string;
    paused: boolean;
    muted: boolean;
  }[];
  /** Channels subscribed to threat alerts, in words; the latest alerts only for those allowed security details; `manage`: the person may turn alerts on and off and mute. */
  alerts: {
    subscriptions: { channelId: string; text: string }[];
    recent?: { channelId: string; visitorId: string; text: string; acknowledgedBy?: string; muted: boolean }[];
    manage: boolean;
  };
  /** Deliveries pending or failed in the person's channels, in words. */
  deliveries: { id: number; channelId: string; label: string; state: string; failed: boolean }[];
  /** Sections other features give the Home (blocks of their own), shown after its lists. */
  sections?: readonly KnownBlock[];
  /** The access settings and limits in force, for admins (read-only). */
  settings?: HomeSettings;
  demo: boolean;
  /** What the last button did, or why it did nothing. */
  notice?: HomeNotice;
}

export interface HomeSettings {
  /**
   * Whether the reader's team runs this Lookout (one workspace): then each setting is named by its
   * environment variable. A distributed app's workspaces are told the same settings in their own
   * words: the environment is the operator's, not theirs to read or change.
   */
  operator: boolean;
  admins: readonly string[];
  securityUsers: readonly string[];
  securityChannels: readonly string[];
  scrapingScoreThreshold: number;
  digestsPerChannel: number;
  digestsPerUser: number;
  digestMinIntervalMs: number;
  watchesPerChannel: number;
  watchesPerUser: number;
  userRequests: number;
  userWindowMs: number;
}

function button(text: string, actionId: string, value: string | number, style?: 'primary' | 'danger'): Button {
  return {
    type: 'button',
    text: plainText(text, LIMITS.buttonText),
    action_id: actionId,
    value: String(value),
    ...(style ? { style } : {}),
  };
}

function actions(blockId: string, elements: ActionsBlock['elements']): ActionsBlock {
  return { type: 'actions', block_id: blockId, elements };
}

function more(n: number, command: string): KnownBlock[] {
  return n > HOME_SHOWN ? [{ type: 'context', elements: [mrkdwn(`…and ${n - HOME_SHOWN} more: \`${command}\``)] }] : [];
}

const mention = (user: string | undefined) => (user && USER_ID.test(user) ? `<@${user}>` : 'someone');

function digestBlocks(view: HomeView): KnownBlock[] {
  const blocks: KnownBlock[] = [
    { type: 'header', text: plainText(`Your digests (${view.digests.length})`, LIMITS.headerText) },
    actions('digests', [button('New digest', HOME_START.newDigest, 'new', 'primary')]),
  ];
  if (view.digests.length === 0)
    blocks.push({ type: 'section', text: mrkdwn('None yet: *New digest*, or `/traffic digest add` in a channel.') });
  for (const d of view.digests.slice(0, HOME_SHOWN)) {
    const state = d.paused ? ':double_vertical_bar: paused' : d.nextRun ? `next ${escapeMrkdwn(d.nextRun)}` : '';
    const last = d.lastRun ? ` · last ${escapeMrkdwn(d.lastRun)}` : '';
    const attention = d.attention ? `\n:warning: ${escapeMrkdwn(d.attention)}` : '';
    blocks.push(
      {
        type: 'section',
        block_id: `digest-${d.id}-about`,
        text: mrkdwn(
          `*#${d.id}* ${escapeMrkdwn(d.reports.join(', '))} in <#${d.channelId}> · ${escapeMrkdwn(d.schedule)}\n${state}${last}${attention}`,
        ),
      },
      actions(`digest-${d.id}`, [
        button('Preview', HOME_ACTIONS.previewDigest, d.id),
        d.paused ? button('Resume', HOME_ACTIONS.resumeDigest, d.id) : button('Pause', HOME_ACTIONS.pauseDigest, d.id),
      ]),
    );
  }
  return [...blocks, ...more(view.digests.length, '/traffic digest list all')];
}

function watchBlocks(view: HomeView): KnownBlock[] {
  const blocks: KnownBlock[] = [
    { type: 'header', text: plainText(`Your watches (${view.watches.length})`, LIMITS.headerText) },
  ];
  if (view.watches.length === 0)
    blocks.push({
      type: 'section',
      text: mrkdwn('None yet. Add one, e.g. `/traffic watch visits drops 40% vs last week`.'),
    });
  for (const w of view.watches.slice(0, HOME_SHOWN)) {
    blocks.push(
      {
        type: 'section',
        block_id: `watch-${w.id}-about`,
        text: mrkdwn(
          `*#${w.id}* ${escapeMrkdwn(w.title)} in <#${w.channelId}>${w.muted ? ' · :no_bell: muted' : ''}\n${escapeMrkdwn(w.state)} · ${escapeMrkdwn(w.alerts)}`,
        ),
      },
      actions(`watch-${w.id}`, [
        w.paused ? button('Resume', HOME_ACTIONS.resumeWatch, w.id) : button('Pause', HOME_ACTIONS.pauseWatch, w.id),
        w.muted ? button('Unmute', HOME_ACTIONS.unmuteWatch, w.id) : button('Mute 24h', HOME_ACTIONS.muteWatch, w.id),
        button('Preview', HOME_ACTIONS.previewWatch, w.id),
      ]),
    );
  }
  return [...blocks, ...more(view.watches.length, '/traffic watch list all')];
}

function alertBlocks({ alerts }: HomeView): KnownBlock[] {
  const blocks: KnownBlock[] = [{ type: 'header', text: plainText('Threat alerts', LIMITS.headerText) }];
  const subs = alerts.subscriptions.slice(0, HOME_SHOWN);
  if (subs.length === 0) blocks.push({ type: 'section', text: mrkdwn('No channel is watching for threats.') });
  if (alerts.manage) {
    for (const s of subs) {
      blocks.push({
        type: 'section',
        block_id: `alerts-${s.channelId}`,
        text: mrkdwn(`<#${s.channelId}>: ${escapeMrkdwn(s.text)}`),
        accessory: button('Turn off', HOME_START.alertsOff, s.channelId, 'danger'),
      });
    }
    blocks.push(
      actions('alerts-on', [
        {
          type: 'channels_select',
          action_id: HOME_START.alertsOn,
          placeholder: plainText('Turn alerts on in…', LIMITS.placeholder),
        },
      ]),
    );
  } else if (subs.length > 0) {
    blocks.push({
      type: 'section',
      text: mrkdwn(subs.map((s) => `<#${s.channelId}>: ${escapeMrkdwn(s.text)}`).join('\n')),
    });
  }
  blocks.push(...more(alerts.subscriptions.length, '/traffic alerts status'));
  if (!alerts.recent) return blocks;
  blocks.push({ type: 'section', text: mrkdwn(`*Latest alerts*${alerts.recent.length === 0 ? '\nnone yet' : ''}`) });
  alerts.recent.slice(0, HOME_SHOWN).forEach((a, i) => {
    const text = `<#${a.channelId}> ${escapeMrkdwn(a.text)} · ${a.acknowledgedBy ? `acknowledged by ${mention(a.acknowledgedBy)}` : 'not acknowledged'}`;
    const ref = `${a.channelId} ${a.visitorId}`;
    const accessory = alerts.manage
      ? {
          accessory: a.muted
            ? button('Unmute', HOME_START.unmuteAlert, ref)
            : button('Mute 24h', HOME_START.muteAlert, ref),
        }
      : {};
    blocks.push({ type: 'section', block_id: `alert-${i}`, text: mrkdwn(text), ...accessory });
  });
  return blocks;
}

function deliveryBlocks(view: HomeView): KnownBlock[] {
  const blocks: KnownBlock[] = [{ type: 'header', text: plainText('Deliveries that need a look', LIMITS.headerText) }];
  if (view.deliveries.length === 0) blocks.push({ type: 'section', text: mrkdwn('Nothing pending or failed.') });
  for (const d of view.deliveries.slice(0, HOME_SHOWN)) {
    blocks.push({
      type: 'section',
      block_id: `delivery-${d.id}`,
      text: mrkdwn(`${escapeMrkdwn(d.label)} in <#${d.channelId}>: ${escapeMrkdwn(d.state)}`),
      ...(d.failed ? { accessory: button('Retry', HOME_ACTIONS.retry, d.id) } : {}),
    });
  }
  return [...blocks, ...more(view.deliveries.length, '/traffic alerts status')];
}

function settingsBlocks(s: HomeSettings | undefined): KnownBlock[] {
  if (!s) return [];
  const people = (ids: readonly string[], none: string) => (ids.length === 0 ? none : ids.map(mention).join(', '));
  const channels = s.securityChannels.filter((c) => CHANNEL_ID.test(c)).map((c) => `<#${c}>`);
  /** ` (`NAME`)` for the operator; nothing for a workspace of a distributed app. */
  const set = (name: string) => (s.operator ? ` (\`${name}\`)` : '');
  const everyone = 'everyone may manage digests, watches and threat alerts';
  const lines = [
    `*Admins*${set('ADMIN_USERS')}: ${people(s.admins, s.operator ? `not set: ${everyone}` : everyone)}`,
    `*Security details*${set('SECURITY_USERS')}: ${people(s.securityUsers, 'everyone')} · in${s.operator ? ' (`SECURITY_CHANNELS`):' : ''} ${channels.length === 0 ? 'any channel' : channels.join(', ')}`,
    `*Scraping* counts as a reason from a score of ${s.scrapingScoreThreshold}${set('SCRAPING_SCORE_THRESHOLD')}`,
    `*Digests*: at most ${s.digestsPerChannel} per channel${set('DIGESTS_PER_CHANNEL')} and ${s.digestsPerUser} per person${set('DIGESTS_PER_USER')}; one runs at most every ${durationInWords(s.digestMinIntervalMs)}${set('DIGEST_MIN_INTERVAL')}`,
    `*Watches*: at most ${s.watchesPerChannel} per channel${set('WATCHES_PER_CHANNEL')} and ${s.watchesPerUser} per person${set('WATCHES_PER_USER')}`,
    `*Requests*: ${formatCount(s.userRequests)} per person every ${durationInWords(s.userWindowMs)}${s.operator ? ' (`USER_RATE_LIMIT`, `USER_RATE_WINDOW`)' : ''}`,
  ];
  return [
    {
      type: 'header',
      text: plainText(s.operator ? 'Settings (admins, read-only)' : 'Settings (read-only)', LIMITS.headerText),
    },
    { type: 'section', block_id: 'settings', text: mrkdwn(lines.join('\n')) },
    {
      type: 'context',
      elements: [
        mrkdwn(
          s.operator
            ? "Set in Lookout's environment (`ADMIN_USERS`, `SECURITY_*`, `DIGESTS_PER_*`, `WATCHES_PER_*`, `USER_RATE_*`…); they change on restart."
            : 'The same for every workspace this Lookout serves, set by whoever runs it: ask them to change one.',
        ),
      ],
    },
  ];
}

/**
 * The Home tab (`views.publish`): the person's digests and watches, threat alerts, and
 * deliveries that need a look, each with buttons that do what the commands do; the
 * sections other features give; the settings in force for admins. At most 10 of each.
 */
export function homeView(view: HomeView): { type: 'home'; blocks: KnownBlock[] } {
  const notice = noticeBlocks(view.notice);
  const blocks: KnownBlock[] = [
    { type: 'header', text: plainText('Lookout', LIMITS.headerText) },
    {
      type: 'context',
      elements: [
        mrkdwn(
          `Visitor analytics and threat alerts for this workspace${view.demo ? ' · _demo data_' : ''}. Type \`/traffic help\` in any channel.`,
        ),
      ],
    },
    ...notice,
    { type: 'divider' },
    ...digestBlocks(view),
    ...watchBlocks(view),
    ...alertBlocks(view),
    ...deliveryBlocks(view),
    ...(view.sections ?? []),
    ...settingsBlocks(view.settings),
  ];
  return { type: 'home', blocks: blocks.slice(0, LIMITS.viewBlocks) };
}
