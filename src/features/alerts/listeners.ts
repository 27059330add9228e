import type { WebClient } from '@slack/web-api';
import type { SlashCommand } from '@slack/bolt';
import { parseAlertsCommand, type ChannelRef } from './parse.js';
import { formatDateTime } from '../../kernel/format.js';
import { escapeMrkdwn } from '../../platform/slack/kit/escape.js';
import { infoMessage, problemMessage, usageMessage, type SlackMessage } from '../../platform/slack/kit/messages.js';
import type { SlackDeps } from '../../platform/slack/deps.js';
import { channelIdByName, isAdmin } from '../digests/listeners.js';

type Reply = (message: SlackMessage) => Promise<unknown>;

async function resolveChannel(client: WebClient, ref: ChannelRef | undefined, current: string): Promise<string | undefined> {
  if (!ref) return current;
  if (ref.id) return ref.id;
  return ref.name ? channelIdByName(client, ref.name) : undefined;
}

/** `/traffic alerts …` (after ack). Changing subscriptions and mutes is for ADMIN_USERS. */
export async function alertsCommand(deps: SlackDeps, command: SlashCommand, client: WebClient, args: string[], reply: Reply): Promise<void> {
  const parsed = parseAlertsCommand(args);
  const user = command.user_id;
  const { subscriptions, mutes, watcher } = deps.alerts;
  if (parsed.kind === 'error') {
    await reply(usageMessage(parsed.message, parsed.usage));
    return;
  }
  if (parsed.kind !== 'status' && !isAdmin(deps, user)) {
    await reply(problemMessage('Only Lookout admins can change threat alerts.', 'Ask one of the ADMIN_USERS.'));
    return;
  }
  const now = deps.now();
  switch (parsed.kind) {
    case 'on':
    case 'off': {
      const channel = await resolveChannel(client, parsed.channel, command.channel_id);
      if (!channel) {
        await reply(problemMessage(`I can't find a channel called #${parsed.channel?.name ?? '?'}.`));
        return;
      }
      if (parsed.kind === 'off') {
        const removed = await subscriptions.remove(channel);
        await reply(infoMessage(removed ? 'Threat alerts are off for that channel.' : 'That channel had no threat alerts.'));
        return;
      }
      await subscriptions.upsert({ channelId: channel, teamId: command.team_id, minSeverity: parsed.min, checks: parsed.checks, createdBy: user });
      deps.log.info({ channel, user, min: parsed.min, checks: parsed.checks }, 'threat alerts on');
      await reply(infoMessage(`Threat alerts are on: visitors of ${parsed.min} severity or more (checks: ${parsed.checks.join(', ')}) are reported in that channel within a scan or two.`));
      return;
    }
    case 'mute': {
      const until = parsed.forMs === null ? null : new Date(now.getTime() + parsed.forMs);
      await mutes.mute(command.channel_id, parsed.visitorId, until, user);
      await reply(infoMessage(`Visitor ${parsed.visitorId} is muted here ${until ? `until ${formatDateTime(until.toISOString(), deps.defaultTimezone, now)}` : 'for good'}.`));
      return;
    }
    case 'unmute': {
      const removed = await mutes.unmute(command.channel_id, parsed.visitorId);
      await reply(infoMessage(removed ? `Visitor ${parsed.visitorId} is no longer muted here.` : `Visitor ${parsed.visitorId} was not muted here.`));
      return;
    }
    case 'status': {
      const subscription = await subscriptions.get(command.channel_id);
      const state = await watcher.state();
      const muted = await mutes.listActive(command.channel_id, now);
      const when = (d: Date | undefined) => (d ? formatDateTime(d.toISOString(), deps.defaultTimezone, now) : 'never');
      const lines = [
        subscription
          ? `*Watching:* ${escapeMrkdwn(subscription.minSeverity)} severity or more · checks ${escapeMrkdwn(subscription.checks.join(', '))}`
          : '*Watching:* nothing in this channel (`/traffic alerts on` to start)',
        `*Last scan:* ${escapeMrkdwn(when(state?.lastScanAt))}${state?.lastCounts ? ` · ${escapeMrkdwn(Object.entries(state.lastCounts).map(([k, v]) => `${v} ${k}`).join(', '))}` : ''}`,
        state?.lastError ? `*Last error:* ${escapeMrkdwn(state.lastError)}` : '*Last error:* none',
        `*Muted here:* ${muted.length === 0 ? 'nobody' : muted.map((m) => `\`${escapeMrkdwn(m.visitorId)}\` (${m.until ? `until ${escapeMrkdwn(when(m.until))}` : 'for good'})`).join(', ')}`,
      ];
      await reply({ text: lines.join('\n').replace(/[*`]/g, ''), blocks: [{ type: 'section', text: { type: 'mrkdwn', text: lines.join('\n').slice(0, 3000) } }] });
      return;
    }
  }
}
