import { createHash } from 'node:crypto';
import type { KnownBlock, View } from '@slack/types';
import { TenantError, type Tenant } from '../../platform/tenancy/tenants.js';
import { ALERT_CHECKS } from '../../kernel/verdict.js';
import { ChannelId, SafeId } from '../../kernel/text.js';
import type { DeliveryRepo } from '../../platform/deliveries/repo.js';
import type { Subjects } from '../../platform/deliveries/subject.js';
import { deliveryState } from '../../platform/deliveries/describe.js';
import type { Logger } from '../../platform/log.js';
import type { Access } from '../../platform/slack/access.js';
import { messageOf, type SlackMessage } from '../../platform/slack/kit/messages.js';
import type { DigestService } from '../digests/index.js';
import type { WatchService } from '../watches/index.js';
import type { AlertService } from '../alerts/index.js';
import { homeView, isNotice, noticeBlocks, type HomeRowAction, type HomeSettings, type HomeView } from './blocks.js';
import type { HomeViewRepo } from './repo.js';
import { HOME } from './deliveries.js';

export interface HomeServiceDeps {
  digests: Pick<DigestService, 'ownedBy' | 'seenBy' | 'setPaused' | 'preview' | 'manageable' | 'ownersIn' | 'newForm'>;
  watches: Pick<WatchService, 'ownedBy' | 'seenBy' | 'setPaused' | 'mute' | 'ownersIn' | 'previewOf'>;
  alerts: Pick<AlertService, 'overview' | 'subscribe' | 'unsubscribe' | 'mute' | 'unmute'>;
  deliveries: Pick<DeliveryRepo, 'unfinished' | 'of' | 'retry' | 'dropPending'>;
  /** What each delivery is about: its name in the list, and whether it carries security details. */
  subjects: Pick<Subjects, 'get' | 'sensitive'>;
  views: HomeViewRepo;
  /** Wakes the delivery worker. */
  queued: () => void;
  /** Who may do what in a workspace. */
  access: (team: string) => Access;
  /** The workspace's tenant (throws TenantError when it cannot be served: no analytics connected). */
  tenantOf: (team: string) => Promise<Tenant>;
  /** Blocks shown at the top of the Home: the workspace's analytics connection. */
  top: (team: string, user: string) => Promise<KnownBlock[]>;
  /** Sections other features give the person's Home, after its own lists: connecting an AI agent. */
  sections: (team: string, user: string) => Promise<KnownBlock[]>;
  settings: Omit<HomeSettings, 'admins' | 'securityUsers' | 'securityChannels'>;
  now: () => Date;
  timeZone: string;
  demo: boolean;
  log: Logger;
}

export type Notice = NonNullable<HomeView['notice']>;
/**
 * What a Home button came to: words for the top of the Home, and a preview to show the person
 * where the digest or watch posts (`instead`: the command that shows it where Slack will not).
 */
export interface Acted {
  notice?: Notice;
  preview?: { channelId: string; message: SlackMessage; instead: string };
}

const DAY = 86_400_000;

/** What is set up in a person's channels, and the Home's blocks of it. */
export interface Setup {
  digests: Awaited<ReturnType<DigestService['seenBy']>>;
  watches: Awaited<ReturnType<WatchService['seenBy']>>;
  subscriptions: { channelId: string; text: string }[];
  recent?: HomeView['alerts']['recent'];
  blocks: KnownBlock[];
}

const said = (outcome: { ok: boolean; message?: { text: string } }, done?: string): Acted =>
  outcome.ok
    ? done
      ? { notice: { ok: true, text: done } }
      : {}
    : { notice: { ok: false, text: outcome.message?.text ?? 'That could not be done.' } };

/** App Home: what a person has set up, and what needs a look; its buttons do what the commands do, with their rules. */
export class HomeService {
  constructor(private readonly deps: HomeServiceDeps) {}

  get log(): Logger {
    return this.deps.log;
  }

  /** The channels the person's digests and watches post in, and which of them they are in (whose deliveries they see). */
  private async channels(tenant: Tenant, user: string) {
    const [digests, watches] = await Promise.all([
      this.deps.digests.ownedBy(tenant, user),
      this.deps.watches.ownedBy(tenant, user),
    ]);
    const theirs = [...new Set([...digests.map((d) => d.channelId), ...watches.map((w) => w.channelId)])];
    return { digests, watches, channels: await tenant.access.channelsOf(user, theirs) };
  }

  /** A button on one row of the person's Home in workspace `team` (its value is the row's id). */
  async act(team: string, user: string, action: HomeRowAction, id: number): Promise<Acted> {
    const tenant = await this.deps.tenantOf(team);
    switch (action) {
      case 'pauseDigest':
      case 'resumeDigest':
        return said(await this.deps.digests.setPaused(tenant, user, id, action === 'pauseDigest'));
      case 'previewDigest': {
        const digest = await this.deps.digests.manageable(tenant, user, id);
        if (!digest.ok) return said(digest);
        const preview = await this.deps.digests.preview(tenant, id, user);
        if (!preview.ok) return said(preview);
        return {
          notice: { ok: true, text: `Preview of digest #${id} sent to you in its channel (only you see it).` },
          preview: { channelId: digest.value.channelId, message: preview.value, instead: '/traffic digest preview' },
        };
      }
      case 'previewWatch': {
        const shown = await this.deps.watches.previewOf(tenant, user, id, 'home');
        if (!shown.ok) return said(shown);
        return {
          notice: { ok: true, text: `Preview of watch #${id} sent to you in its channel (only you see it).` },
          preview: {
            channelId: shown.value.watch.channelId,
            message: shown.value.message,
            instead: '/traffic watch preview',
          },
        };
      }
      case 'pauseWatch':
      case 'resumeWatch':
        return said(await this.deps.watches.setPaused(tenant, user, id, action === 'pauseWatch', 'home'));
      case 'muteWatch':
      case 'unmuteWatch':
        return said(
          await this.deps.watches.mute(tenant, user, id, action === 'muteWatch' ? DAY : 0, 'home'),
          action === 'muteWatch'
            ? `Watch #${id} is muted for 24 hours: it keeps evaluating and posts nothing.`
            : `Watch #${id} is unmuted.`,
        );
      case 'retry': {
        const delivery = await this.deps.deliveries.of(team, id);
        const { channels } = await this.channels(tenant, user);
        if (!delivery || !channels.includes(delivery.channelId))
          return { notice: { ok: false, text: 'That delivery is not one of yours.' } };
        if (!(await this.deps.deliveries.retry(team, id, 6 * 3_600_000)))
          return { notice: { ok: false, text: 'That delivery is no longer failed.' } };
        this.deps.queued();
        this.deps.log.info({ delivery: id, team, user }, 'failed delivery retried from App Home');
        return {};
      }
    }
  }

  /** Threat alerts on or off in a channel, with the defaults of `/traffic alerts on` (admins only, security channels only). */
  async alertsIn(user: string, teamId: string, channel: string | undefined, on: boolean): Promise<Acted> {
    const id = ChannelId.safeParse(channel);
    if (!id.success) return { notice: { ok: false, text: 'That is not a channel; pick one from the list.' } };
    const tenant = await this.deps.tenantOf(teamId);
    if (!on) return said(await this.deps.alerts.unsubscribe(tenant, user, id.data, undefined));
    return said(
      await this.deps.alerts.subscribe(tenant, user, id.data, {
        min: 'medium',
        checks: [...ALERT_CHECKS],
        grouping: 'grouped',
      }),
      `Threat alerts are on in that channel: medium severity or more, every check.`,
    );
  }

  /** Mute a flagged visitor in a channel for 24 hours, or unmute (admins only); `ref` is `<channel id> <visitor id>`. */
  async muteAlert(team: string, user: string, ref: string | undefined, mute: boolean): Promise<Acted> {
    const [channel, visitor] = (ref ?? '').split(' ');
    const channelId = ChannelId.safeParse(channel);
    const visitorId = SafeId.safeParse(visitor);
    if (!channelId.success || !visitorId.success)
      return { notice: { ok: false, text: 'That button is too old; open the Home tab again.' } };
    const tenant = await this.deps.tenantOf(team);
    const outcome = mute
      ? await this.deps.alerts.mute(tenant, user, channelId.data, visitorId.data, DAY)
      : await this.deps.alerts.unmute(tenant, user, channelId.data, visitorId.data);
    return said(outcome, messageOf(outcome).text);
  }

  /** The digest form, empty, for "New digest". */
  async newDigestForm(team: string, user: string): Promise<View> {
    return this.deps.digests.newForm(await this.deps.tenantOf(team), user);
  }

  /**
   * What is set up in the channels the person is in (an agent's answer): the workspace's
   * digests, watches and threat-alert subscriptions there, each with its state, and the
   * latest alerts there for those allowed security details; as the Home shows them.
   */
  async setup(tenant: Tenant, user: string): Promise<Setup> {
    const [digests, watches, overview] = await Promise.all([
      this.deps.digests.seenBy(tenant, user),
      this.deps.watches.seenBy(tenant, user),
      this.deps.alerts.overview(tenant, user),
    ]);
    const subscribed = [...new Set(overview.subscriptions.map((s) => s.channelId))];
    const theirs = new Set(await tenant.access.channelsOf(user, subscribed));
    const subscriptions = overview.subscriptions.filter((s) => theirs.has(s.channelId));
    const recent = overview.alerts?.filter((a) => theirs.has(a.channelId));
    const view = homeView({
      digests,
      watches,
      alerts: { subscriptions, manage: false, ...(recent ? { recent } : {}) },
      deliveries: [],
      demo: this.deps.demo,
    });
    return { digests, watches, subscriptions, ...(recent ? { recent } : {}), blocks: view.blocks };
  }

  /** The person's Home in workspace `team` as it stands, with `notice` at its top, and the hash of what it shows (the notice left out). */
  async render(
    team: string,
    user: string,
    notice?: Notice,
  ): Promise<{ view: ReturnType<typeof homeView>; hash: string }> {
    const top = await this.deps.top(team, user);
    let tenant: Tenant;
    try {
      tenant = await this.deps.tenantOf(team);
    } catch (error) {
      // A workspace that cannot be served yet (no analytics connected) sees only how to connect.
      if (!(error instanceof TenantError)) throw error;
      return this.hashed({ type: 'home', blocks: [...top, ...noticeBlocks(notice)] });
    }
    const access = tenant.access;
    const { digests, watches, channels } = await this.channels(tenant, user);
    const open =
      channels.length > 0
        ? await this.deps.deliveries.unfinished({ team, channels, failedWithinMs: 7 * DAY, limit: 30 })
        : [];
    const security = access.maySeeSecurityPrivately(user);
    const admin = access.isAdmin(user);
    const now = this.deps.now();
    const deliveries = open
      .filter((d) => security || !this.deps.subjects.sensitive(d.kind))
      .map((d) => ({
        id: d.id,
        channelId: d.channelId,
        label: this.deps.subjects.get(d.kind)?.label ?? d.kind,
        state: deliveryState(d, this.deps.timeZone, now),
        failed: d.status === 'failed',
      }));
    const [overview, sections] = await Promise.all([
      this.deps.alerts.overview(tenant, user),
      this.deps.sections(team, user),
    ]);
    const alerts = {
      subscriptions: overview.subscriptions,
      manage: admin,
      ...(overview.alerts ? { recent: overview.alerts } : {}),
    };
    const { rules } = access;
    const settings: HomeSettings | undefined = admin
      ? {
          admins: rules.admins,
          securityUsers: rules.security.users,
          securityChannels: rules.security.channels,
          ...this.deps.settings,
        }
      : undefined;
    const view = homeView({
      digests,
      watches,
      alerts,
      deliveries,
      sections,
      demo: this.deps.demo,
      ...(settings ? { settings } : {}),
      ...(notice ? { notice } : {}),
    });
    if (top.length > 0) view.blocks.unshift(...top);
    return this.hashed(view);
  }

  private hashed(view: ReturnType<typeof homeView>): { view: ReturnType<typeof homeView>; hash: string } {
    const shown = view.blocks.filter((b) => !isNotice(b));
    return { view, hash: createHash('sha256').update(JSON.stringify(shown)).digest('base64url') };
  }

  /**
   * The person now sees the view with this hash (they opened the Home, or pressed one of
   * its buttons). A refresh still queued was rendered before it: sent after, it would
   * put the older Home back, so it is dropped.
   */
  async shown(team: string, user: string, hash: string): Promise<void> {
    await this.deps.views.opened(team, user, hash);
    await this.deps.deliveries.dropPending(HOME, team, user);
  }

  /** The people whose digests or watches post in these channels. */
  async ownersIn(team: string, channels: readonly string[]): Promise<string[]> {
    const [d, w] = await Promise.all([
      this.deps.digests.ownersIn(team, channels),
      this.deps.watches.ownersIn(team, channels),
    ]);
    return [...new Set([...d, ...w])];
  }
}
