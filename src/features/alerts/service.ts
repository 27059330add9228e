import { counted, durationInWords, formatCount, formatDateTimeIn } from '../../kernel/format.js';
import type { ChannelRef } from '../../kernel/text.js';
import type { AlertCheck, Severity } from '../../kernel/verdict.js';
import type { Changed } from '../../platform/changes.js';
import type { Logger } from '../../platform/log.js';
import type { Tenant } from '../../platform/tenancy/tenants.js';
import { escapeMrkdwn, mrkdwnCode } from '../../platform/slack/kit/escape.js';
import { infoMessage, problemMessage, type Result, type SlackMessage } from '../../platform/slack/kit/messages.js';
import { deliveryState } from '../../platform/deliveries/describe.js';
import type { DeliveryRepo } from '../../platform/deliveries/repo.js';
import type { FlaggedOf, ThreatScan, Verdicts } from '../threats/index.js';
import { alertMessage, alertViewOf } from './blocks.js';
import { GROUP_WINDOW_MS, type Grouping } from './plan.js';
import type { AlertRepo } from './repos/alerts.js';
import type { AlertMuteRepo } from './repos/mutes.js';
import type { AlertSubscriptionRepo } from './repos/subscriptions.js';

export interface AlertRepos {
  subscriptions: AlertSubscriptionRepo;
  mutes: AlertMuteRepo;
  alerts: AlertRepo;
  deliveries: DeliveryRepo;
}

/** A workspace as threat alerts see it: its team, its analytics account, its rules and its Slack lookups. */
export type AlertTenant = Pick<Tenant, 'team' | 'account' | 'access' | 'directory'>;

/**
 * What digests may ask about one workspace's flagged visitors: the threat scan's verdicts,
 * and how many flagged visitors its alerts have seen.
 */
export interface FlaggedVisitors extends Verdicts {
  /** Flagged visitors seen between `from` and `to`, and since when the threat scan has been checking; undefined while it is off. */
  seen(tenant: FlaggedOf, from: Date, to: Date): Promise<FlaggedSeen | undefined>;
}

/** What the threat scan knows of a span: flagged visitors active in it, since when it scans for the workspace, and up to when it has looked. */
export interface FlaggedSeen {
  /** Distinct flagged visitors whose visits seen by the scan span part of it. */
  count: number;
  scanningSince: Date;
  /** The newest visit its scans have reached (absent: none yet). */
  checkedUpTo?: Date;
}

export type AlertAction = 'ack' | 'mute24h' | 'mute7d' | 'unmute';

export interface AlertServiceDeps {
  repos: AlertRepos;
  /** Where the threat scan of each analytics account got to. */
  scan: Pick<ThreatScan, 'stateOf' | 'startAt'>;
  now: () => Date;
  /** Times in alert messages and status are shown in this zone. */
  timeZone: string;
  log: Logger;
  /** Told that what App Home shows of threat alerts changed. */
  changed?: Changed;
}

/** A button's alert that is not this workspace's channel's, or no longer stored. */
const ALERT_NOT_FOUND = problemMessage(
  "This alert is not found: it is not in this workspace's store (or no longer is).",
);

const MUTE_MS: Record<'mute24h' | 'mute7d', number> = { mute24h: 24 * 3_600_000, mute7d: 7 * 86_400_000 };

const WINDOW = durationInWords(GROUP_WINDOW_MS);
/** What a subscription's grouping means, said when alerts are turned on. */
const GROUPING_WORDS: Record<Grouping, string> = {
  grouped: `New flagged visitors within ${WINDOW} of each other's first share one message, with an alert each in its thread (\`/traffic alerts on each\` for one message per visitor).`,
  each: 'Each flagged visitor gets a message of its own (`/traffic alerts on grouped` to group them).',
};
/** …and in the status. */
const GROUPING_STATUS: Record<Grouping, string> = { grouped: `grouped (${WINDOW})`, each: 'one message per visitor' };

/**
 * The rules of threat alerts: anyone may see the status and acknowledge an alert;
 * only admins turn alerts on or off and mute or unmute visitors.
 */
export class AlertService {
  constructor(private readonly deps: AlertServiceDeps) {}

  get log(): Logger {
    return this.deps.log;
  }

  private adminOnly(tenant: AlertTenant, user: string): Result<never> | undefined {
    if (tenant.access.isAdmin(user)) return undefined;
    return {
      ok: false,
      message: problemMessage(
        'Only Lookout admins can change threat alerts.',
        'Acknowledge it instead, or ask one of the ADMIN_USERS.',
      ),
    };
  }

  private when(date: Date | undefined | null, now: Date): string {
    return date ? formatDateTimeIn(date.toISOString(), this.deps.timeZone, now) : 'never';
  }

  async subscribe(
    tenant: AlertTenant,
    user: string,
    here: string,
    request: { channel?: ChannelRef; min: Severity; checks: AlertCheck[]; grouping: Grouping },
  ): Promise<Result<SlackMessage>> {
    const refused = this.adminOnly(tenant, user);
    if (refused) return refused;
    const channelId = request.channel ? await tenant.directory.channelId(request.channel) : here;
    if (!channelId)
      return { ok: false, message: problemMessage(`I can't find a channel called #${request.channel?.name ?? '?'}.`) };
    // Alerts carry security details and visits: only where SECURITY_CHANNELS allows them.
    if (!tenant.access.mayPostSecurity(channelId)) {
      const allowed = tenant.access.rules.security.channels.join(', ');
      return {
        ok: false,
        message: problemMessage(
          'Threat alerts can only go to the security channels.',
          `SECURITY_CHANNELS allows ${allowed}; turn alerts on in one of those.`,
        ),
      };
    }
    await this.deps.repos.subscriptions.upsert({
      channelId,
      teamId: tenant.team,
      minSeverity: request.min,
      checks: request.checks,
      createdBy: user,
      grouping: request.grouping,
    });
    // Visits from now on are scanned, even if the first scan is cut short.
    await this.deps.scan.startAt(tenant.account, this.deps.now());
    this.deps.changed?.('everyone');
    this.deps.log.info(
      {
        team: tenant.team,
        channel: channelId,
        user,
        min: request.min,
        checks: request.checks,
        grouping: request.grouping,
      },
      'threat alerts on',
    );
    return {
      ok: true,
      value: infoMessage([
        `Threat alerts are on: visitors of ${request.min} severity or more (checks: ${request.checks.join(', ')}) are reported in `,
        { channel: channelId },
        ` within a scan or two. ${GROUPING_WORDS[request.grouping]}`,
      ]),
    };
  }

  async unsubscribe(
    tenant: AlertTenant,
    user: string,
    here: string,
    channel: ChannelRef | undefined,
  ): Promise<Result<SlackMessage>> {
    const refused = this.adminOnly(tenant, user);
    if (refused) return refused;
    const channelId = channel ? await tenant.directory.channelId(channel) : here;
    if (!channelId)
      return { ok: false, message: problemMessage(`I can't find a channel called #${channel?.name ?? '?'}.`) };
    const removed = await this.deps.repos.subscriptions.remove(tenant.team, channelId);
    if (removed) this.deps.changed?.('everyone');
    this.deps.log.info({ team: tenant.team, channel: channelId, user, removed }, 'threat alerts off');
    return removed
      ? { ok: true, value: infoMessage('Threat alerts are off for that channel.') }
      : { ok: false, message: infoMessage('That channel had no threat alerts.') };
  }

  /** Mutes a visitor in a channel for `forMs` (null: for good). */
  async mute(
    tenant: AlertTenant,
    user: string,
    channelId: string,
    visitorId: string,
    forMs: number | null,
  ): Promise<Result<SlackMessage>> {
    const refused = this.adminOnly(tenant, user);
    if (refused) return refused;
    const now = this.deps.now();
    const until = forMs === null ? null : new Date(now.getTime() + forMs);
    await this.deps.repos.mutes.mute(tenant.team, channelId, visitorId, until, user);
    this.deps.changed?.('everyone');
    const known = (await this.deps.repos.alerts.get(tenant.team, channelId, visitorId)) !== undefined;
    const note = known
      ? ''
      : ` No alert about ${visitorId} has been raised here yet: check the id (from an alert or a visitors report); the mute applies if it shows up.`;
    return {
      ok: true,
      value: infoMessage(
        `Visitor ${visitorId} is muted here ${until ? `until ${this.when(until, now)}` : 'for good'}.${note}`,
      ),
    };
  }

  async unmute(tenant: AlertTenant, user: string, channelId: string, visitorId: string): Promise<Result<SlackMessage>> {
    const refused = this.adminOnly(tenant, user);
    if (refused) return refused;
    const removed = await this.deps.repos.mutes.unmute(tenant.team, channelId, visitorId);
    if (removed) this.deps.changed?.('everyone');
    return removed
      ? { ok: true, value: infoMessage(`Visitor ${visitorId} is no longer muted here.`) }
      : { ok: false, message: infoMessage(`Visitor ${visitorId} was not muted here.`) };
  }

  /** A button on an alert: acknowledge (anyone), mute or unmute (admins). The alert's message as it is now, to replace it in place. */
  async act(
    tenant: AlertTenant,
    user: string,
    channelId: string,
    visitorId: string,
    action: AlertAction,
  ): Promise<Result<SlackMessage>> {
    const now = this.deps.now();
    const { alerts, mutes } = this.deps.repos;
    const team = tenant.team;
    // Only an alert of this workspace's channel is acted on (a button's channel and visitor are what was clicked).
    if (!(await alerts.get(team, channelId, visitorId))) return { ok: false, message: ALERT_NOT_FOUND };
    const refused = action === 'ack' ? undefined : this.adminOnly(tenant, user);
    if (refused) return refused;
    if (action === 'ack') await alerts.acknowledge(team, channelId, visitorId, user, now);
    else if (action === 'unmute') await mutes.unmute(team, channelId, visitorId);
    else await mutes.mute(team, channelId, visitorId, new Date(now.getTime() + MUTE_MS[action]), user);
    const alert = await alerts.get(team, channelId, visitorId);
    if (!alert) return { ok: false, message: ALERT_NOT_FOUND };
    const mute = await mutes.isMuted(team, channelId, visitorId, now);
    this.deps.changed?.('everyone');
    this.deps.log.info({ team, channel: channelId, visitorId, user, action }, 'alert changed');
    return {
      ok: true,
      value: alertMessage(
        alertViewOf(alert, { timeZone: this.deps.timeZone, now, mutedUntil: mute ? (mute.until ?? null) : undefined }),
      ),
    };
  }

  /** `/traffic alerts status`: what this channel watches, the last scan, the last error, who is muted. */
  async status(tenant: AlertTenant, channelId: string): Promise<SlackMessage> {
    const now = this.deps.now();
    const { subscriptions, mutes } = this.deps.repos;
    const subscription = await subscriptions.get(tenant.team, channelId);
    const state = await this.deps.scan.stateOf(tenant.account);
    const muted = await mutes.listActive(tenant.team, channelId, now);
    const unfinished = await this.deps.repos.deliveries.unfinished({
      team: tenant.team,
      channels: [channelId],
      failedWithinMs: 7 * 86_400_000,
      limit: 6,
    });
    const lines = [
      subscription
        ? `*Watching:* ${escapeMrkdwn(subscription.minSeverity)} severity or more · checks ${escapeMrkdwn(subscription.checks.join(', '))} · ${GROUPING_STATUS[subscription.grouping]}`
        : '*Watching:* nothing in this channel (`/traffic alerts on` to start)',
      `*Last scan:* ${escapeMrkdwn(this.when(state?.lastScanAt, now))}${state?.lastCounts ? ` · ${escapeMrkdwn(scanCounts(state.lastCounts))}` : ''}`,
      state?.lastError ? `*Last error:* ${escapeMrkdwn(state.lastError)}` : '*Last error:* none',
      ...(subscription?.attention
        ? [
            `:warning: *Needs attention:* Slack refuses this channel (${mrkdwnCode(subscription.attention)}). Invite Lookout here, or turn alerts off.`,
          ]
        : []),
      `*Deliveries:* ${
        unfinished.length === 0
          ? 'none waiting or failed'
          : unfinished
              .slice(0, 5)
              .map((d) => `#${d.id} ${d.kind} ${escapeMrkdwn(deliveryState(d, this.deps.timeZone, now))}`)
              .join(' · ') + (unfinished.length > 5 ? ' · …and more' : '')
      }`,
      `*Muted here:* ${muted.length === 0 ? 'nobody' : muted.map((m) => `${mrkdwnCode(m.visitorId)} (${m.until ? `until ${escapeMrkdwn(this.when(m.until, now))}` : 'for good'})`).join(', ')}`,
    ];
    return {
      text: lines.join('\n').replace(/[*`]/g, ''),
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: lines.join('\n').slice(0, 3000) } }],
    };
  }

  /**
   * For App Home: each channel's subscription in words, and, for those allowed security
   * details, the latest alerts with their acknowledge and mute state.
   */
  async overview(
    tenant: AlertTenant,
    user: string,
    limit = 10,
  ): Promise<{
    subscriptions: { channelId: string; text: string }[];
    alerts?: { channelId: string; visitorId: string; text: string; acknowledgedBy?: string; muted: boolean }[];
  }> {
    const now = this.deps.now();
    const subscriptions = (await this.deps.repos.subscriptions.list([tenant.team])).map((s) => ({
      channelId: s.channelId,
      text: `${s.minSeverity} severity or more · checks ${s.checks.join(', ')}${s.attention ? ` · Slack refuses this channel (${s.attention})` : ''}`,
    }));
    if (!tenant.access.maySeeSecurityPrivately(user)) return { subscriptions };
    const recent = await this.deps.repos.alerts.recent(tenant.team, limit);
    const alerts = await Promise.all(
      recent.map(async (a) => {
        const mute = await this.deps.repos.mutes.isMuted(tenant.team, a.channelId, a.visitorId, now);
        const muted = mute ? ` · ${mute.until ? `muted until ${this.when(mute.until, now)}` : 'muted for good'}` : '';
        return {
          channelId: a.channelId,
          visitorId: a.visitorId,
          muted: mute !== undefined,
          text: `${a.verdict} · ${a.severity}: visitor ${a.visitorId} · last seen ${this.when(a.lastSeen, now)}${muted}`,
          ...(a.acknowledgedBy ? { acknowledgedBy: a.acknowledgedBy } : {}),
        };
      }),
    );
    return { subscriptions, alerts };
  }

  async seen(tenant: FlaggedOf, from: Date, to: Date): Promise<FlaggedSeen | undefined> {
    const subscriptions = await this.deps.repos.subscriptions.list([tenant.team]);
    if (subscriptions.length === 0) return undefined;
    const scanningSince = new Date(Math.min(...subscriptions.map((s) => s.createdAt.getTime())));
    const state = await this.deps.scan.stateOf(tenant.account);
    const count = await this.deps.repos.alerts.countSeenBetween(tenant.team, undefined, from, to);
    return { count, scanningSince, ...(state?.watermark ? { checkedUpTo: state.watermark } : {}) };
  }
}

const SCAN_NOUNS: Readonly<Record<string, string>> = {
  visits: 'visit',
  visitors: 'visitor',
  lookups: 'lookup',
  alerts: 'alert',
  sightings: 'sighting',
};

/** A scan's counts in words, each noun agreeing with its number: "1 visit, 1 visitor, 0 alerts". */
export function scanCounts(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .map(([key, n]) => (SCAN_NOUNS[key] ? counted(n, SCAN_NOUNS[key]) : `${formatCount(n)} ${key}`))
    .join(', ');
}
