import type { Button, KnownBlock } from '@slack/types';
import { USER_ID } from '../../kernel/text.js';
import { escapeMrkdwn } from '../../platform/slack/kit/escape.js';
import { LIMITS, mrkdwn, plainText } from '../../platform/slack/kit/limits.js';

export const HOME_ACTIONS = {
  pauseDigest: 'home.digest.pause',
  resumeDigest: 'home.digest.resume',
  pauseWatch: 'home.watch.pause',
  resumeWatch: 'home.watch.resume',
  retry: 'home.delivery.retry',
} as const;

function button(text: string, actionId: string, id: number): Button {
  return { type: 'button', text: plainText(text, LIMITS.buttonText), action_id: actionId, value: String(id) };
}

/** How many of each kind the Home tab lists; the rest are counted, with the command that lists them all. */
export const HOME_SHOWN = 15;

export interface HomeView {
  digests: { id: number; channelId: string; reports: string[]; schedule: string; nextRun?: string; lastRun?: string; paused: boolean; attention?: string }[];
  watches: { id: number; title: string; channelId: string; state: string; paused: boolean }[];
  /** Channels subscribed to threat alerts, in words; the latest alerts only for those allowed security details. */
  alerts: { subscriptions: { channelId: string; text: string }[]; recent?: { channelId: string; text: string; acknowledgedBy?: string }[] };
  /** Deliveries pending or failed in the person's channels, in words. */
  deliveries: { id: number; channelId: string; kind: string; state: string; failed: boolean }[];
  demo: boolean;
  /** Why the last button did nothing. */
  problem?: string;
}

function more(n: number, command: string): KnownBlock[] {
  return n > HOME_SHOWN ? [{ type: 'context', elements: [mrkdwn(`…and ${n - HOME_SHOWN} more: \`${command}\``)] }] : [];
}

/** The Home tab (`views.publish`): the person's digests and watches, and deliveries that need a look. At most 100 blocks. */
export function homeView(view: HomeView): { type: 'home'; blocks: KnownBlock[] } {
  const blocks: KnownBlock[] = [
    { type: 'header', text: plainText('Lookout', LIMITS.headerText) },
    { type: 'context', elements: [mrkdwn(`Visitor analytics and threat alerts for this workspace${view.demo ? ' · _demo data_' : ''}. Type \`/traffic help\` in any channel.`)] },
    ...(view.problem ? [{ type: 'section' as const, text: mrkdwn(`:warning: ${escapeMrkdwn(view.problem)}`) }] : []),
    { type: 'divider' },
    { type: 'header', text: plainText(`Your digests (${view.digests.length})`, LIMITS.headerText) },
  ];
  if (view.digests.length === 0) blocks.push({ type: 'section', text: mrkdwn('None yet. Add one with `/traffic digest add` in a channel.') });
  for (const d of view.digests.slice(0, HOME_SHOWN)) {
    const state = d.paused ? ':double_vertical_bar: paused' : d.nextRun ? `next ${escapeMrkdwn(d.nextRun)}` : '';
    const last = d.lastRun ? ` · last ${escapeMrkdwn(d.lastRun)}` : '';
    const attention = d.attention ? `\n:warning: ${escapeMrkdwn(d.attention)}` : '';
    blocks.push({
      type: 'section',
      block_id: `digest-${d.id}`,
      text: mrkdwn(`*#${d.id}* ${escapeMrkdwn(d.reports.join(', '))} in <#${d.channelId}> · ${escapeMrkdwn(d.schedule)}\n${state}${last}${attention}`),
      accessory: d.paused ? button('Resume', HOME_ACTIONS.resumeDigest, d.id) : button('Pause', HOME_ACTIONS.pauseDigest, d.id),
    });
  }
  blocks.push(...more(view.digests.length, '/traffic digest list all'));
  blocks.push({ type: 'header', text: plainText(`Your watches (${view.watches.length})`, LIMITS.headerText) });
  if (view.watches.length === 0) blocks.push({ type: 'section', text: mrkdwn('None yet. Add one, e.g. `/traffic watch visits drops 40% vs last week`.') });
  for (const w of view.watches.slice(0, HOME_SHOWN)) {
    blocks.push({
      type: 'section',
      block_id: `watch-${w.id}`,
      text: mrkdwn(`*#${w.id}* ${escapeMrkdwn(w.title)} in <#${w.channelId}>\n${escapeMrkdwn(w.state)}`),
      accessory: w.paused ? button('Resume', HOME_ACTIONS.resumeWatch, w.id) : button('Pause', HOME_ACTIONS.pauseWatch, w.id),
    });
  }
  blocks.push(...more(view.watches.length, '/traffic watch list all'));
  blocks.push({ type: 'header', text: plainText('Threat alerts', LIMITS.headerText) });
  const subs = view.alerts.subscriptions;
  blocks.push({
    type: 'section',
    text: mrkdwn(subs.length === 0 ? 'No channel is watching for threats (`/traffic alerts on` in one).' : subs.slice(0, HOME_SHOWN).map((s) => `<#${s.channelId}>: ${escapeMrkdwn(s.text)}`).join('\n')),
  });
  if (view.alerts.recent) {
    const lines = view.alerts.recent.map((a) => `<#${a.channelId}> ${escapeMrkdwn(a.text)} · ${a.acknowledgedBy && USER_ID.test(a.acknowledgedBy) ? `acknowledged by <@${a.acknowledgedBy}>` : 'not acknowledged'}`);
    blocks.push({ type: 'section', text: mrkdwn(`*Latest alerts*\n${lines.length > 0 ? lines.join('\n') : 'none yet'}`) });
  }
  blocks.push({ type: 'header', text: plainText('Deliveries that need a look', LIMITS.headerText) });
  if (view.deliveries.length === 0) blocks.push({ type: 'section', text: mrkdwn('Nothing pending or failed.') });
  for (const d of view.deliveries.slice(0, HOME_SHOWN)) {
    blocks.push({ type: 'section', block_id: `delivery-${d.id}`, text: mrkdwn(`${escapeMrkdwn(d.kind)} in <#${d.channelId}>: ${escapeMrkdwn(d.state)}`), ...(d.failed ? { accessory: button('Retry', HOME_ACTIONS.retry, d.id) } : {}) });
  }
  return { type: 'home', blocks: blocks.slice(0, 100) };
}
