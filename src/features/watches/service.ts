import type { ChannelRef } from '../../kernel/text.js';
import { durationInWords } from '../../kernel/format.js';
import type { Changed } from '../../platform/changes.js';
import type { Logger } from '../../platform/log.js';
import type { From, Owned } from '../../platform/slack/access.js';
import { teamOf } from '../../platform/tenancy/team.js';
import type { Tenant } from '../../platform/tenancy/tenants.js';
import { infoMessage, problemMessage, type Result, type SlackMessage } from '../../platform/slack/kit/messages.js';
import { escapeMrkdwn } from '../../platform/slack/kit/escape.js';
import { mrkdwn } from '../../platform/slack/kit/limits.js';
import {
  alertsSince,
  alertsWords,
  mayIgnoreAutomated,
  watchAlertMessage,
  watchListMessage,
  watchTitle,
} from './blocks.js';
import { type WatchRule } from './plan.js';
import { judgedWords, periodLabel } from './period.js';
import { previewBlocks, previewMessage } from './preview-blocks.js';
import type { WatchPreviewer } from './previewer.js';
import { FOREVER, type Watch, type WatchRepo } from './repo.js';

export interface WatchServiceDeps {
  repo: WatchRepo;
  /** A workspace's tenant; throws TenantError when it cannot be served. */
  tenantOf: (team: string) => Promise<Tenant>;
  now: () => Date;
  defaultTimezone: string;
  /** The zone the API counts its days in: a daily watch's figures are its days. */
  apiZone: string;
  /** So many a channel, so many a person (WATCHES_PER_CHANNEL, WATCHES_PER_USER). */
  limits: { perChannel: number; perUser: number };
  demo: boolean;
  log: Logger;
  /** Told whose view of watches changed (App Home). */
  changed?: Changed;
  /** How a rule would have behaved over the past weeks: shown when a watch is added or changed. */
  previewer: WatchPreviewer;
}

/** A watch as lists show it: its title, and its state in words. */
export interface WatchItem {
  id: number;
  title: string;
  channelId: string;
  state: string;
  paused: boolean;
  muted: boolean;
  /** The last period evaluated, in words with its zone. */
  lastPeriod?: string;
  /** When its current alert began (breaching). */
  breachSince?: Date;
  /** How often it alerted in the last 30 days (or since it was added), in words. */
  alerts: string;
}

const owned = (w: Watch): Owned => ({ name: `Watch #${w.id}`, ownerId: w.ownerId, channelId: w.channelId });

const refuse = (text: string, hint?: string): { ok: false; message: SlackMessage } => ({
  ok: false,
  message: problemMessage(text, hint),
});

/**
 * The rules of watches are Access's (platform/slack/access.ts): who may post in a channel, change a watch, or answer its alert, and from where.
 * Each call is one workspace's (its tenant): it sees and changes that workspace's watches only.
 */
export class WatchService {
  constructor(private readonly deps: WatchServiceDeps) {}

  get log(): Logger {
    return this.deps.log;
  }

  /** The tenant of the workspace a request comes from (Slack's signed body); throws TenantError when it cannot be served. */
  tenantOf(body: unknown): Promise<Tenant> {
    return this.deps.tenantOf(teamOf(body));
  }

  /** The zone a person's hours are in (the workspace's default when Slack does not say). */
  zoneOf(tenant: Tenant, user: string): Promise<string> {
    return tenant.directory.userTimeZone(user, this.deps.defaultTimezone);
  }

  /** The zone the API counts its days in. */
  get apiZone(): string {
    return this.deps.apiZone;
  }

  async add(tenant: Tenant, user: string, here: string, rule: WatchRule, channel?: ChannelRef): Promise<Result<Watch>> {
    const channelId = channel ? await tenant.directory.channelId(channel) : here;
    if (!channelId)
      return refuse(
        `I can't find a channel called #${channel?.name ?? '?'}.`,
        'Check the name, or run the command in that channel.',
      );
    const notThere = await tenant.access.mayPostIn(user, channelId);
    if (notThere) return { ok: false, message: notThere };
    const over = await this.overLimit(tenant.team, user, channelId);
    if (over) return over;
    const timeZone = await this.zoneOf(tenant, user);
    const watch = await this.deps.repo.create({ teamId: tenant.team, channelId, ownerId: user, rule, timeZone });
    this.deps.changed?.({ users: [watch.ownerId] });
    this.deps.log.info({ watch: watch.id, user, channel: channelId }, 'watch added');
    return { ok: true, value: watch };
  }

  async edit(
    tenant: Tenant,
    user: string,
    id: number,
    rule: WatchRule,
    from: From,
    channel?: ChannelRef,
  ): Promise<Result<Watch>> {
    const found = await this.manageable(tenant, user, id, from);
    if (!found.ok) return found;
    const channelId = channel ? await tenant.directory.channelId(channel) : found.value.channelId;
    if (!channelId) return refuse(`I can't find a channel called #${channel?.name ?? '?'}.`);
    if (channelId !== found.value.channelId) {
      const notThere = await tenant.access.mayPostIn(user, channelId);
      if (notThere) return { ok: false, message: notThere };
      const over = await this.overLimit(tenant.team, found.value.ownerId, channelId, id);
      if (over) return over;
    }
    const watch = await this.deps.repo.edit(tenant.team, id, rule, channelId);
    if (!watch) return refuse(`There is no watch #${id}.`, 'See /traffic watch list.');
    this.deps.changed?.({ users: [watch.ownerId] });
    this.deps.log.info({ watch: id, user }, 'watch edited');
    return { ok: true, value: watch };
  }

  async setPaused(tenant: Tenant, user: string, id: number, paused: boolean, from: From): Promise<Result<Watch>> {
    const found = await this.manageable(tenant, user, id, from);
    if (!found.ok) return found;
    const watch = (await this.deps.repo.setPaused(tenant.team, id, paused)) ?? found.value;
    this.deps.changed?.({ users: [watch.ownerId] });
    this.deps.log.info({ watch: id, user, paused }, 'watch paused or resumed');
    return { ok: true, value: watch };
  }

  async remove(tenant: Tenant, user: string, id: number, from: From): Promise<Result<SlackMessage>> {
    const found = await this.manageable(tenant, user, id, from);
    if (!found.ok) return found;
    await this.deps.repo.remove(tenant.team, id);
    this.deps.changed?.({ users: [found.value.ownerId] });
    this.deps.log.info({ watch: id, user }, 'watch removed');
    return { ok: true, value: infoMessage(`Watch #${id} is removed.`) };
  }

  /** Mute (null: for good) or unmute (0). */
  async mute(tenant: Tenant, user: string, id: number, forMs: number | null, from: From): Promise<Result<Watch>> {
    const found = await this.answerable(tenant, user, id, from);
    if (!found.ok) return found;
    const watch = found.value;
    const until = forMs === null ? FOREVER : forMs <= 0 ? null : new Date(this.deps.now().getTime() + forMs);
    const after = (await this.deps.repo.setMuted(tenant.team, id, until)) ?? watch;
    this.deps.changed?.({ users: [watch.ownerId] });
    this.deps.log.info({ watch: id, user, until }, forMs === 0 ? 'watch unmuted' : 'watch muted');
    return { ok: true, value: after };
  }

  async acknowledge(tenant: Tenant, user: string, id: number, from: From): Promise<Result<Watch>> {
    const found = await this.answerable(tenant, user, id, from);
    if (!found.ok) return found;
    const watch = found.value;
    if (watch.state !== 'breaching') return refuse(`Watch #${id} is back to normal; there is nothing to acknowledge.`);
    return { ok: true, value: (await this.deps.repo.acknowledge(tenant.team, id, user, this.deps.now())) ?? watch };
  }

  /** A watch whose alert `user` may see the flagged visitors of, from here. */
  explained(tenant: Tenant, user: string, id: number, from: From): Promise<Result<Watch>> {
    return this.answerable(tenant, user, id, from);
  }

  /** "Ignore automated spikes": the watch counts visits by people from its next period on. */
  async ignoreAutomated(tenant: Tenant, user: string, id: number, from: From): Promise<Result<Watch>> {
    const found = await this.manageable(tenant, user, id, from);
    if (!found.ok) return found;
    if (!mayIgnoreAutomated(found.value.rule))
      return refuse(`Watch #${id} cannot count people only: it is not a watch of all visits.`);
    return this.edit(tenant, user, id, { ...found.value.rule, who: 'people' }, from);
  }

  /** The alert as it stands now (for an in-place update after a button). */
  alertOf(watch: Watch): SlackMessage {
    return watchAlertMessage({
      ...watch,
      text: watch.lastText ?? '',
      apiZone: this.deps.apiZone,
      now: this.deps.now(),
      demo: this.deps.demo,
    });
  }

  /** A period of a watch (its key: `2026-11-27T14`, `2026-11-22`) in words, with its zone. */
  periodWords(watch: Watch, key: string): string {
    const [date, hour] = key.split('T');
    const period = { date: date!, ...(hour !== undefined ? { hour: Number(hour) } : {}) };
    return periodLabel(period, { timeZone: watch.timeZone, apiZone: this.deps.apiZone });
  }

  async list(tenant: Tenant, user: string, where: { channelId: string } | 'all'): Promise<SlackMessage> {
    const watches = await this.deps.repo.list(tenant.team, where === 'all' ? undefined : where.channelId);
    const now = this.deps.now();
    const alerts = await this.alertCounts(watches, now);
    return watchListMessage(
      watches.map((w) => ({
        ...w,
        alerts: alerts.get(w.id) ?? 0,
        canManage: tenant.access.mayManage(user, w.ownerId),
      })),
      { now, heading: where === 'all' ? 'all channels' : 'this channel' },
    );
  }

  /** A confirmation that says what the watch does and when it is next evaluated. */
  added(watch: Watch, verb: 'added' | 'changed'): SlackMessage {
    return infoMessage([
      `Watch #${watch.id} ${verb}: ${watchTitle(watch.rule)}, evaluated every ${watch.rule.every} for ${judgedWords(watch.rule.every, { timeZone: watch.timeZone, apiZone: this.deps.apiZone })}, posting in `,
      { channel: watch.channelId },
      '.',
    ]);
  }

  /** The confirmation with the watch's preview; a rule with no preview says why beneath it. */
  async confirmation(tenant: Tenant, user: string, watch: Watch, verb: 'added' | 'changed'): Promise<SlackMessage> {
    const message = this.added(watch, verb);
    const preview = await this.deps.previewer.preview(tenant, user, watch.rule, watch.timeZone);
    const more = preview.ok
      ? previewBlocks(preview.value, this.deps.apiZone, watch.id)
      : [{ type: 'context' as const, elements: [mrkdwn(escapeMrkdwn(preview.message.text))] }];
    return { ...message, blocks: [...(message.blocks ?? []), ...more] };
  }

  /** A watch's preview, for a person who may change it (the Home's Preview button). */
  async previewOf(
    tenant: Tenant,
    user: string,
    id: number,
    from: From,
  ): Promise<Result<{ watch: Watch; message: SlackMessage }>> {
    const found = await this.manageable(tenant, user, id, from);
    if (!found.ok) return found;
    const watch = found.value;
    const preview = await this.deps.previewer.preview(tenant, user, watch.rule, watch.timeZone);
    if (!preview.ok) return preview;
    const message = previewMessage(preview.value, this.deps.apiZone, watch.id);
    return { ok: true, value: { watch, message } };
  }

  muteNote(watch: Watch, forMs: number | null): SlackMessage {
    if (forMs === 0) return infoMessage(`Watch #${watch.id} is unmuted.`);
    return infoMessage(
      `Watch #${watch.id} is muted ${forMs === null ? 'for good' : `for ${durationInWords(forMs)}`}: it keeps evaluating and posts nothing.`,
    );
  }

  /** The person's own watches in the workspace, each as its title and state in words (for App Home). */
  async ownedBy(tenant: Tenant, user: string): Promise<WatchItem[]> {
    return this.items((await this.deps.repo.list(tenant.team)).filter((w) => w.ownerId === user));
  }

  /** The workspace's watches that post in channels the person is in, each as its title and state in words (for an agent). */
  async seenBy(tenant: Tenant, user: string): Promise<WatchItem[]> {
    const watches = await this.deps.repo.list(tenant.team);
    const theirs = new Set(await tenant.access.channelsOf(user, [...new Set(watches.map((w) => w.channelId))]));
    return this.items(watches.filter((w) => theirs.has(w.channelId)));
  }

  /** Each watch's alerts in the last 30 days (the list's and the Home's count). */
  private alertCounts(watches: readonly Watch[], now: Date): Promise<Map<number, number>> {
    return this.deps.repo.alertCounts(
      watches.map((w) => w.id),
      alertsSince(now),
    );
  }

  private async items(watches: readonly Watch[]): Promise<WatchItem[]> {
    const now = this.deps.now();
    const alerts = await this.alertCounts(watches, now);
    return watches.map((w) => this.item(w, alerts.get(w.id) ?? 0, now));
  }

  private item(w: Watch, alerts: number, now: Date): WatchItem {
    return {
      muted: w.mutedUntil !== undefined && w.mutedUntil > now,
      id: w.id,
      title: watchTitle(w.rule),
      channelId: w.channelId,
      paused: w.paused,
      state: w.paused
        ? 'paused'
        : w.lastOutcome === 'unknown'
          ? `unknown: ${w.lastError ?? ''}`
          : w.state === 'breaching'
            ? `breaching: ${w.lastText ?? ''}`
            : w.lastText
              ? `ok: ${w.lastText}`
              : 'not evaluated yet',
      ...(w.lastPeriod ? { lastPeriod: this.periodWords(w, w.lastPeriod) } : {}),
      ...(w.breachSince ? { breachSince: w.breachSince } : {}),
      alerts: alertsWords(alerts, w, now),
    };
  }

  /** Who owns the workspace's watches that post in these channels (App Home). */
  ownersIn(team: string, channels: readonly string[]): Promise<string[]> {
    return this.deps.repo.ownersIn(team, channels);
  }

  /** The workspace's watch by an id a request carried. */
  find(team: string, id: number): Promise<Watch | undefined> {
    return this.deps.repo.of(team, id);
  }

  /** A watch of the workspace `user` may change from here. */
  async manageable(tenant: Tenant, user: string, id: number, from: From): Promise<Result<Watch>> {
    const watch = await this.deps.repo.of(tenant.team, id);
    if (!watch) return refuse(`There is no watch #${id}.`, 'See /traffic watch list.');
    const refused = await tenant.access.mayChange(user, owned(watch), from);
    return refused ? { ok: false, message: refused } : { ok: true, value: watch };
  }

  /** A watch whose alert `user` may mute or acknowledge from here. */
  private async answerable(tenant: Tenant, user: string, id: number, from: From): Promise<Result<Watch>> {
    const watch = await this.deps.repo.of(tenant.team, id);
    if (!watch) return refuse(`There is no watch #${id}.`, 'See /traffic watch list.');
    const refused = await tenant.access.mayRespond(user, owned(watch), from);
    return refused ? { ok: false, message: refused } : { ok: true, value: watch };
  }

  private async overLimit(
    team: string,
    ownerId: string,
    channelId: string,
    except = 0,
  ): Promise<{ ok: false; message: SlackMessage } | undefined> {
    const { perChannel, perUser } = this.deps.limits;
    const counts = await this.deps.repo.counts(team, channelId, ownerId, except);
    if (counts.channel >= perChannel)
      return refuse(
        `<#${channelId}> already has ${counts.channel} watches, the most a channel may have.`,
        'Remove one first (/traffic watch list).',
      );
    if (counts.owner >= perUser)
      return refuse(
        `You already have ${counts.owner} watches, the most one person may have.`,
        'Remove one first (/traffic watch list all).',
      );
    return undefined;
  }
}
