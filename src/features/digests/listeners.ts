import type { WebClient } from '@slack/web-api';
import type { SlashCommand } from '@slack/bolt';
import { REPORTS } from '../../kernel/catalog.js';
import { parseDigestCommand, filtersToText } from './parse.js';
import { defaultPeriod } from './schedule.js';
import { digestList } from './blocks.js';
import { digestModal } from './modal.js';
import { infoMessage, problemMessage, usageMessage, type SlackMessage } from '../../platform/slack/kit/messages.js';
import type { SlackDeps } from '../../platform/slack/deps.js';
import type { Digest } from './repo.js';

type Reply = (message: SlackMessage) => Promise<unknown>;

export function isAdmin(deps: SlackDeps, user: string): boolean {
  return deps.admins.length === 0 || deps.admins.includes(user);
}

/** May `user` change this digest? Admins may change any; others only their own. */
export function mayManage(deps: SlackDeps, user: string, digest: Digest): boolean {
  return isAdmin(deps, user) || digest.ownerId === user;
}

/** A user's own Slack time zone (users.info), else the default. */
export async function userTimeZone(deps: SlackDeps, client: WebClient, user: string): Promise<string> {
  try {
    const info = await client.users.info({ user });
    return info.user?.tz || deps.defaultTimezone;
  } catch (error) {
    deps.log.warn({ user, err: String(error) }, 'users.info failed; using the default time zone');
    return deps.defaultTimezone;
  }
}

/** `#name` → a channel id, through conversations.list (public channels the app can see). */
export async function channelIdByName(client: WebClient, name: string): Promise<string | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const result = await client.conversations.list({ limit: 200, cursor, exclude_archived: true, types: 'public_channel,private_channel' });
    const found = result.channels?.find((c) => c.name === name);
    if (found?.id) return found.id;
    cursor = result.response_metadata?.next_cursor || undefined;
    if (!cursor) return undefined;
  }
  return undefined;
}

/** Answers for one digest by id: found and manageable, or a message saying why not. */
async function ownDigest(deps: SlackDeps, id: number, user: string, reply: Reply, manage: boolean): Promise<Digest | undefined> {
  const digest = await deps.digests.repo.get(id);
  if (!digest) {
    await reply(problemMessage(`There is no digest #${id}.`, 'See /traffic digest list.'));
    return undefined;
  }
  if (manage && !mayManage(deps, user, digest)) {
    await reply(problemMessage(`Digest #${id} belongs to someone else; only its owner or an admin can change it.`));
    return undefined;
  }
  return digest;
}

/** `/traffic digest …` (after ack). */
export async function digestCommand(deps: SlackDeps, command: SlashCommand, client: WebClient, args: string[], reply: Reply): Promise<void> {
  const parsed = parseDigestCommand(args, deps.catalog);
  const user = command.user_id;
  const { repo, service } = deps.digests;
  switch (parsed.kind) {
    case 'error':
      await reply(usageMessage(parsed.message, parsed.usage));
      return;
    case 'open-form': {
      await client.views.open({
        trigger_id: command.trigger_id,
        view: digestModal(Object.values(REPORTS), {
          channelId: command.channel_id,
          reports: ['sources', 'pages', 'countries'],
          schedule: { kind: 'weekly', weekday: 1, time: '09:00' },
          timeZone: await userTimeZone(deps, client, user),
          top: 5,
          filters: '',
        }),
      });
      return;
    }
    case 'add': {
      let channelId = parsed.channel?.id ?? command.channel_id;
      if (!parsed.channel?.id && parsed.channel?.name) {
        const found = await channelIdByName(client, parsed.channel.name);
        if (!found) {
          await reply(problemMessage(`I can't find a channel called #${parsed.channel.name}.`, 'Check the name, or pick it in the form: /traffic digest add'));
          return;
        }
        channelId = found;
      }
      const digest = await repo.create({
        teamId: command.team_id,
        channelId,
        ownerId: user,
        reports: parsed.reports,
        filters: parsed.filters,
        topN: parsed.top,
        period: defaultPeriod(parsed.schedule.kind),
        schedule: parsed.schedule,
        cron: parsed.cron,
        timeZone: parsed.timeZone ?? (await userTimeZone(deps, client, user)),
      });
      await service.changed();
      deps.log.info({ digest: digest.id, user, channel: channelId }, 'digest added');
      await reply(await listMessage(deps, [digest], user, 'just added'));
      return;
    }
    case 'list': {
      const digests = parsed.all ? await repo.listAll() : await repo.listByChannel(command.channel_id);
      await reply(await listMessage(deps, digests, user, parsed.all ? 'in this workspace' : 'in this channel'));
      return;
    }
    case 'preview': {
      const digest = await ownDigest(deps, parsed.id, user, reply, false);
      if (digest) await reply(await service.render(digest, deps.now(), true));
      return;
    }
    case 'pause':
    case 'resume': {
      const digest = await ownDigest(deps, parsed.id, user, reply, true);
      if (!digest) return;
      await repo.setPaused(digest.id, parsed.kind === 'pause');
      await service.changed();
      await reply(infoMessage(`Digest #${digest.id} is ${parsed.kind === 'pause' ? 'paused' : 'running again'}.`));
      return;
    }
    case 'remove': {
      const digest = await ownDigest(deps, parsed.id, user, reply, true);
      if (!digest) return;
      await repo.remove(digest.id);
      await service.changed();
      deps.log.info({ digest: digest.id, user }, 'digest removed');
      await reply(infoMessage(`Digest #${digest.id} is removed.`));
      return;
    }
    case 'edit': {
      const digest = await ownDigest(deps, parsed.id, user, reply, true);
      if (!digest) return;
      await client.views.open({ trigger_id: command.trigger_id, view: editView(digest) });
      return;
    }
  }
}

export function editView(digest: Digest) {
  return digestModal(
    Object.values(REPORTS),
    { channelId: digest.channelId, reports: digest.reports, schedule: digest.schedule, timeZone: digest.timeZone, top: digest.topN, filters: filtersToText(digest.filters) },
    digest.id,
  );
}

export async function listMessage(deps: SlackDeps, digests: Digest[], user: string, scope: string): Promise<SlackMessage> {
  const timeZone = deps.defaultTimezone;
  const items = await deps.digests.service.describe(digests, user, isAdmin(deps, user), timeZone);
  return digestList(items, scope);
}
