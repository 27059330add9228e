import { REPORTS } from '../../kernel/catalog.js';
import { filtersToText } from '../../kernel/filters.js';
import { formatDateTime, formatDateTimeIn, durationInWords } from '../../kernel/format.js';
import type { Logger } from '../../platform/log.js';
import { withinQuota, type Quota } from '../../platform/quota.js';
import { teamOf } from '../../platform/tenancy/team.js';
import { TenantError, type Tenant } from '../../platform/tenancy/tenants.js';
import { infoMessage, problemMessage, type Result, type SlackMessage } from '../../platform/slack/kit/messages.js';
import { digestList, digestSavedMessage, type DigestListItem } from './blocks.js';
import type { DigestContent } from './content.js';
import type { View } from '@slack/types';
import type { Changed } from '../../platform/changes.js';
import { digestModal, type DigestFormInput, type DigestFormValues } from './modal.js';
import type { DigestAdd } from './parse.js';
import { defaultPeriod } from './period.js';
import type { Digest, DigestRepo } from './repo.js';
import type { DeliveryRepo } from '../../platform/deliveries/repo.js';
import { deliveryState } from '../../platform/deliveries/describe.js';
import type { DigestRunRepo } from './runs.js';
import { scheduleInWords, shortestGap } from './cron.js';

/** What the service needs of the scheduler: take changes now, and say when a digest runs next. */
export interface Schedule {
  reload(): Promise<void>;
  nextRun(digest: Digest): Date | undefined;
}

export interface DigestServiceDeps {
  repo: DigestRepo;
  runs: DigestRunRepo;
  deliveries: DeliveryRepo;
  content: DigestContent;
  schedule: Schedule;
  /** A workspace's tenant; throws TenantError when it cannot be served. */
  tenantOf: (team: string) => Promise<Tenant>;
  now: () => Date;
  defaultTimezone: string;
  limits: DigestLimits;
  quota: Quota;
  log: Logger;
  /** Told whose view of digests changed (App Home). */
  changed?: Changed;
}

/** Limits on abuse: a digest runs at most this often, and a channel or a person has at most so many. */
export interface DigestLimits {
  minIntervalMs: number;
  perChannel: number;
  perUser: number;
}

/** A change refused: the message says why. */
const refuse = (text: string, hint?: string): { ok: false; message: SlackMessage } => ({
  ok: false,
  message: problemMessage(text, hint),
});

/**
 * The rules of digests, in one place: anyone may add one, only its owner or an admin
 * may change it, and every change is taken into this replica's schedule at once
 * (other replicas reload on their interval). Each call is one workspace's (its tenant):
 * it sees and changes that workspace's digests only.
 */
export class DigestService {
  constructor(private readonly deps: DigestServiceDeps) {}

  get log(): Logger {
    return this.deps.log;
  }

  /** The tenant of the workspace a request comes from (Slack's signed body); throws TenantError when it cannot be served. */
  tenantOf(body: unknown): Promise<Tenant> {
    return this.deps.tenantOf(teamOf(body));
  }

  /** The same, or why the workspace cannot be served now. */
  async workspace(body: unknown): Promise<Result<Tenant>> {
    try {
      return { ok: true, value: await this.tenantOf(body) };
    } catch (error) {
      if (error instanceof TenantError) return refuse(error.message);
      throw error;
    }
  }

  /** `/traffic digest add …` in one line; the channel may be named, the zone defaults to the person's own. */
  async add(tenant: Tenant, user: string, here: string, command: DigestAdd): Promise<Result<Digest>> {
    const channelId = command.channel ? await tenant.directory.channelId(command.channel) : here;
    if (!channelId) {
      return refuse(
        `I can't find a channel called #${command.channel?.name ?? '?'}.`,
        'Check the name, or pick it in the form: /traffic digest add',
      );
    }
    const timeZone = command.timeZone ?? (await tenant.directory.userTimeZone(user, this.deps.defaultTimezone));
    const { schedule, cron, reports, filters, top } = command;
    return this.create(tenant, user, { channelId, reports, filters, topN: top, schedule, cron, timeZone });
  }

  async create(tenant: Tenant, user: string, input: DigestFormInput): Promise<Result<Digest>> {
    const notThere = await tenant.access.mayPostIn(user, input.channelId);
    if (notThere) return { ok: false, message: notThere };
    const over = await this.overLimit(tenant.team, user, input);
    if (over) return refuse(over.problem, over.hint);
    const digest = await this.deps.repo.create({
      ...input,
      teamId: tenant.team,
      ownerId: user,
      period: defaultPeriod(input.schedule.kind),
    });
    await this.changed(digest.ownerId);
    this.deps.log.info({ digest: digest.id, user, channel: digest.channelId }, 'digest added');
    return { ok: true, value: digest };
  }

  /**
   * What a digest just created or saved does next, as the scheduler has it (a change is taken
   * into the schedule before it is confirmed): its next slot in its zone, or that it is paused.
   */
  async saved(tenant: Tenant, digest: Digest, verb: 'created' | 'saved', here: string): Promise<SlackMessage> {
    const fresh = (await this.deps.repo.of(tenant.team, digest.id)) ?? digest;
    const now = this.deps.now();
    const due = fresh.nextRunAt !== undefined && !fresh.paused && fresh.nextRunAt.getTime() <= now.getTime();
    const at = due ? fresh.nextRunAt : this.deps.schedule.nextRun(fresh);
    return digestSavedMessage({
      id: fresh.id,
      verb,
      channelId: fresh.channelId,
      inChannel: here === fresh.channelId,
      schedule: scheduleInWords(fresh.schedule, fresh.timeZone),
      ...(at ? { next: { at: formatDateTimeIn(at.toISOString(), fresh.timeZone, now), due } } : {}),
    });
  }

  async update(tenant: Tenant, user: string, id: number, input: DigestFormInput): Promise<Result<Digest>> {
    const found = await this.manageable(tenant, user, id);
    if (!found.ok) return found;
    if (input.channelId !== found.value.channelId) {
      const notThere = await tenant.access.mayPostIn(user, input.channelId);
      if (notThere) return { ok: false, message: notThere };
    }
    const over = await this.overLimit(tenant.team, found.value.ownerId, input, found.value);
    if (over) return refuse(over.problem, over.hint);
    const digest = await this.deps.repo.update(tenant.team, id, {
      ...input,
      period: defaultPeriod(input.schedule.kind),
    });
    if (!digest) return refuse(`There is no digest #${id}.`, 'See /traffic digest list.');
    await this.changed(digest.ownerId);
    this.deps.log.info({ digest: id, user }, 'digest edited');
    return { ok: true, value: digest };
  }

  async setPaused(tenant: Tenant, user: string, id: number, paused: boolean): Promise<Result<Digest>> {
    const found = await this.manageable(tenant, user, id);
    if (!found.ok) return found;
    const digest = (await this.deps.repo.setPaused(tenant.team, id, paused)) ?? found.value;
    await this.changed(digest.ownerId);
    this.deps.log.info({ digest: id, user, paused }, 'digest paused or resumed');
    return { ok: true, value: digest };
  }

  async remove(tenant: Tenant, user: string, id: number): Promise<Result<SlackMessage>> {
    const found = await this.manageable(tenant, user, id);
    if (!found.ok) return found;
    await this.deps.repo.remove(tenant.team, id);
    await this.changed(found.value.ownerId);
    this.deps.log.info({ digest: id, user }, 'digest removed');
    return { ok: true, value: infoMessage(`Digest #${id} is removed.`) };
  }

  /** Which limit these settings break, if any: runs too close together, or too many of the workspace's digests in the channel or for the owner. */
  async overLimit(
    team: string,
    ownerId: string,
    input: DigestFormInput,
    editing?: Digest,
  ): Promise<{ field: 'schedule' | 'channel'; problem: string; hint: string } | undefined> {
    const { minIntervalMs, perChannel, perUser } = this.deps.limits;
    const gap = shortestGap(input.cron, input.timeZone, this.deps.now(), minIntervalMs);
    if (gap < minIntervalMs) {
      return {
        field: 'schedule',
        problem: `That schedule runs every ${durationInWords(gap)}; a digest may run at most every ${durationInWords(minIntervalMs)}.`,
        hint: 'Pick a daily, weekly or monthly schedule, or a cron expression with runs further apart.',
      };
    }
    const counts = await this.deps.repo.counts(team, input.channelId, ownerId, editing?.id);
    if (counts.channel >= perChannel && editing?.channelId !== input.channelId) {
      return {
        field: 'channel',
        problem: `That channel already has ${counts.channel} digests, the most a channel may have.`,
        hint: 'Remove one there first (/traffic digest list), or pick another channel.',
      };
    }
    if (counts.owner >= perUser && !editing) {
      return {
        field: 'channel',
        problem: `You already have ${counts.owner} digests, the most one person may have.`,
        hint: 'Remove one first: /traffic digest list all',
      };
    }
    return undefined;
  }

  /** The digest as it would post now, for anyone to see (a preview changes nothing). */
  async preview(tenant: Tenant, id: number, user: string): Promise<Result<SlackMessage>> {
    const digest = await this.deps.repo.of(tenant.team, id);
    if (!digest) return refuse(`There is no digest #${id}.`, 'See /traffic digest list.');
    // Its totals (this period and the one before), each report's top rows (both periods) and its chart's cold days; more is charged after.
    const rendered = await withinQuota(this.deps.quota, tenant.team, user, 2 + digest.reports.length * 2 + 2, () =>
      this.deps.content.render(tenant, digest, this.deps.now(), true),
    );
    return rendered.ok ? { ok: true, value: rendered.value } : refuse(rendered.problem);
  }

  /** A digest its owner or an admin may change. */
  async manageable(tenant: Tenant, user: string, id: number): Promise<Result<Digest>> {
    const digest = await this.deps.repo.of(tenant.team, id);
    if (!digest) return refuse(`There is no digest #${id}.`, 'See /traffic digest list.');
    if (!tenant.access.mayManage(user, digest.ownerId)) {
      return refuse(`Digest #${id} belongs to someone else; only its owner or an admin can change it.`);
    }
    return { ok: true, value: digest };
  }

  /** What the form shows: a digest's settings, or sensible ones for a new digest in this channel. */
  async formValues(
    tenant: Tenant,
    user: string,
    channelId: string | undefined,
    digest?: Digest,
  ): Promise<DigestFormValues> {
    if (digest) {
      return {
        channelId: digest.channelId,
        reports: digest.reports,
        schedule: digest.schedule,
        timeZone: digest.timeZone,
        top: digest.topN,
        filters: filtersToText(digest.filters),
      };
    }
    return {
      ...(channelId ? { channelId } : {}),
      reports: ['sources', 'pages', 'countries'],
      schedule: { kind: 'weekly', weekday: 1, time: '09:00' },
      timeZone: await tenant.directory.userTimeZone(user, this.deps.defaultTimezone),
      top: 5,
      filters: '',
    };
  }

  /** `/traffic digest list [all]`: each digest with its schedule, next run, last result and the buttons this person may use. */
  async list(
    tenant: Tenant,
    user: string,
    scope: { channelId: string } | 'all',
    heading?: string,
  ): Promise<SlackMessage> {
    const digests =
      scope === 'all'
        ? await this.deps.repo.listAll(tenant.team)
        : await this.deps.repo.listByChannel(tenant.team, scope.channelId);
    return this.describe(tenant, digests, user, heading ?? (scope === 'all' ? 'in this workspace' : 'in this channel'));
  }

  async describe(tenant: Tenant, digests: Digest[], user: string, heading: string): Promise<SlackMessage> {
    return digestList(await this.items(tenant, digests, user), heading);
  }

  /** The person's own digests in the workspace, as the list shows them (for App Home). */
  async ownedBy(tenant: Tenant, user: string): Promise<DigestListItem[]> {
    return this.items(
      tenant,
      (await this.deps.repo.listAll(tenant.team)).filter((d) => d.ownerId === user),
      user,
    );
  }

  /** The workspace's digests that post in channels the person is in (for an agent). */
  async seenBy(tenant: Tenant, user: string): Promise<DigestListItem[]> {
    const digests = await this.deps.repo.listAll(tenant.team);
    const theirs = new Set(await tenant.access.channelsOf(user, [...new Set(digests.map((d) => d.channelId))]));
    return this.items(
      tenant,
      digests.filter((d) => theirs.has(d.channelId)),
      user,
    );
  }

  private async items(tenant: Tenant, digests: Digest[], user: string): Promise<DigestListItem[]> {
    const last = await this.deps.runs.lastRuns(digests.map((d) => d.id));
    const now = this.deps.now();
    const zone = this.deps.defaultTimezone;
    const queued = new Map<number, string>();
    for (const run of last.values()) {
      const delivery =
        run.status === 'queued' && run.deliveryId ? await this.deps.deliveries.get(run.deliveryId) : undefined;
      if (delivery) queued.set(run.digestId, deliveryState(delivery, zone, now));
    }
    const items = digests.map((d) => {
      const run = last.get(d.id);
      const next = this.deps.schedule.nextRun(d);
      const how = queued.get(d.id) ?? run?.error;
      return {
        id: d.id,
        channelId: d.channelId,
        ownerId: d.ownerId,
        reports: d.reports.map((id) => (Object.hasOwn(REPORTS, id) ? id : '?')),
        schedule: scheduleInWords(d.schedule, d.timeZone),
        nextRun: next ? formatDateTime(next.toISOString(), d.timeZone, now) : undefined,
        lastRun: run
          ? `${run.status} ${formatDateTime(run.slot.toISOString(), d.timeZone, now)}${how ? ` (${how})` : ''}`
          : undefined,
        attention: d.attention,
        paused: d.paused,
        canManage: tenant.access.mayManage(user, d.ownerId),
      };
    });
    return items;
  }

  /** Who owns the workspace's digests that post in these channels (App Home). */
  ownersIn(team: string, channels: readonly string[]): Promise<string[]> {
    return this.deps.repo.ownersIn(team, channels);
  }

  /** The empty digest form, with no channel chosen (App Home's New digest). */
  async newForm(tenant: Tenant, user: string): Promise<View> {
    return digestModal(Object.values(REPORTS), await this.formValues(tenant, user, undefined));
  }

  private async changed(ownerId: string): Promise<void> {
    await this.deps.schedule.reload();
    this.deps.changed?.({ users: [ownerId] });
  }
}
