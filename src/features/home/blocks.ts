import type { KnownBlock } from '@slack/types';
import { escapeMrkdwn } from '../../platform/slack/kit/escape.js';
import { LIMITS, mrkdwn, plainText } from '../../platform/slack/kit/limits.js';

/** How many of each kind the Home tab lists; the rest are counted, with the command that lists them all. */
export const HOME_SHOWN = 15;

export interface HomeView {
  digests: { id: number; channelId: string; reports: string[]; schedule: string; nextRun?: string; lastRun?: string; paused: boolean; attention?: string }[];
  watches: { id: number; title: string; channelId: string; state: string }[];
  /** Deliveries pending or failed in the person's channels, in words. */
  deliveries: { channelId: string; kind: string; state: string }[];
  demo: boolean;
}

function more(n: number, command: string): KnownBlock[] {
  return n > HOME_SHOWN ? [{ type: 'context', elements: [mrkdwn(`…and ${n - HOME_SHOWN} more: \`${command}\``)] }] : [];
}

/** The Home tab (`views.publish`): the person's digests and watches, and deliveries that need a look. At most 100 blocks. */
export function homeView(view: HomeView): { type: 'home'; blocks: KnownBlock[] } {
  const blocks: KnownBlock[] = [
    { type: 'header', text: plainText('Lookout', LIMITS.headerText) },
    { type: 'context', elements: [mrkdwn(`Visitor analytics and threat alerts for this workspace${view.demo ? ' · _demo data_' : ''}. Type \`/traffic help\` in any channel.`)] },
    { type: 'divider' },
    { type: 'header', text: plainText(`Your digests (${view.digests.length})`, LIMITS.headerText) },
  ];
  if (view.digests.length === 0) blocks.push({ type: 'section', text: mrkdwn('None yet. Add one with `/traffic digest add` in a channel.') });
  for (const d of view.digests.slice(0, HOME_SHOWN)) {
    const state = d.paused ? ':double_vertical_bar: paused' : d.nextRun ? `next ${escapeMrkdwn(d.nextRun)}` : '';
    const last = d.lastRun ? ` · last ${escapeMrkdwn(d.lastRun)}` : '';
    const attention = d.attention ? `\n:warning: ${escapeMrkdwn(d.attention)}` : '';
    blocks.push({ type: 'section', text: mrkdwn(`*#${d.id}* ${escapeMrkdwn(d.reports.join(', '))} in <#${d.channelId}> · ${escapeMrkdwn(d.schedule)}\n${state}${last}${attention}`) });
  }
  blocks.push(...more(view.digests.length, '/traffic digest list all'));
  blocks.push({ type: 'header', text: plainText(`Your watches (${view.watches.length})`, LIMITS.headerText) });
  if (view.watches.length === 0) blocks.push({ type: 'section', text: mrkdwn('None yet. Add one, e.g. `/traffic watch visits drops 40% vs last week`.') });
  for (const w of view.watches.slice(0, HOME_SHOWN)) {
    blocks.push({ type: 'section', text: mrkdwn(`*#${w.id}* ${escapeMrkdwn(w.title)} in <#${w.channelId}>\n${escapeMrkdwn(w.state)}`) });
  }
  blocks.push(...more(view.watches.length, '/traffic watch list all'));
  blocks.push({ type: 'header', text: plainText('Deliveries that need a look', LIMITS.headerText) });
  if (view.deliveries.length === 0) blocks.push({ type: 'section', text: mrkdwn('Nothing pending or failed.') });
  for (const d of view.deliveries.slice(0, HOME_SHOWN)) {
    blocks.push({ type: 'section', text: mrkdwn(`${escapeMrkdwn(d.kind)} in <#${d.channelId}>: ${escapeMrkdwn(d.state)}`) });
  }
  return { type: 'home', blocks: blocks.slice(0, 100) };
}
