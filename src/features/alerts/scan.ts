import { createHash } from 'node:crypto';
import pLimit from 'p-limit';
import type { Part, SecurityAnswers, SecurityCheck, VisitRecord } from '../../kernel/records.js';
import {
  securityFacts,
  type AlertCheck,
  type SecurityFacts,
  type VerdictName,
  type VerdictOptions,
} from '../../kernel/verdict.js';
import type { AnalyticsApi } from '../../platform/api/analytics.js';
import type { Account } from '../../platform/tenancy/tenants.js';
import { ApiError } from '../../platform/api/errors.js';
import type { Logger } from '../../platform/log.js';
import { DeliveryRepo } from '../../platform/deliveries/repo.js';
import type { Db, Queryable } from '../../platform/store/db.js';
import type { LeaseRepo } from '../../platform/store/leases.js';
import { ALERT, ALERT_EDIT, ALERT_GROUP, SIGHTING } from './deliveries.js';
import { alertMessage, alertViewOf, groupMessage, sightingsReply, type AlertRecord, type AlertView } from './blocks.js';
import { GROUP_WINDOW_MS, planChannel, planDelivery, type Decision, type NewAlert } from './plan.js';
import {
  AlertGroupRepo,
  AlertMuteRepo,
  AlertRepo,
  ScanStateRepo,
  type Alert,
  type AlertGroup,
  type AlertSubscription,
  type AlertSubscriptionRepo,
  type VisitorCheckRepo,
} from './repo.js';

export interface AlertRepos {
  subscriptions: AlertSubscriptionRepo;
  mutes: AlertMuteRepo;
  alerts: AlertRepo;
  visitorChecks: VisitorCheckRepo;
  scanState: ScanStateRepo;
  deliveries: DeliveryRepo;
}

export interface ThreatScanOptions {
  /** Every analytics account and its workspaces (`Tenants.all`): each is scanned on its own. */
  tenants: { all(): Promise<{ account: ScannedAccount; teams?: string[] }[]> };
  repos: AlertRepos;
  leases: LeaseRepo;
  /** The store the scan's decisions are written to, in one transaction. */
  db: Db;
  /** Told after a scan queued deliveries. */
  queued?: () => void;
  /** An alert not posted within this is given up (and shown as failed). */
  deliveryDeadlineMs: number;
  log: Logger;
  now: () => Date;
  /** This replica's name on the lease. */
  owner: string;
  verdict: VerdictOptions;
  timeZone: string;
  /** ALERT_SCAN_INTERVAL. */
  intervalMs: number;
  /** ALERT_RECHECK_AFTER: a visitor's security answers are reused this long. */
  recheckMs: number;
  /** ALERT_BURST: in a channel that takes one message per visitor, more new flagged visitors than this in one scan become one group. */
  burst: number;
  /** Visitors looked up at once. */
  concurrency?: number;
  pageSize?: number;
}

export interface ScanResult {
  status: 'scanned' | 'no-subscriptions' | 'not-leader' | 'failed';
  visits: number;
  visitors: number;
  lookups: number;
  alerts: number;
  sightings: number;
  error?: string;
}

/** A scan of every account: the sums, `failed` when any account's scan failed, and each account's own result. */
export interface ScanResults extends ScanResult {
  accounts: (ScanResult & { account: string })[];
}

/** Where the scan of an analytics account keeps its watermark (`visits` before scans had an account). */
export function scanStateKey(account: string): string {
  return `visits@${account}`;
}
const LEGACY_SCAN_STATE_KEY = 'visits';
/** The lease's key in the store keeps the name it had (replicas of an earlier version hold it under that key). */
export const SCAN_LEASE_KEY = 'threat-watch';

/** What the scan reads of an analytics account. */
export type ScannedAccount = Pick<Account, 'account' | 'api'>;

interface CachedFacts {
  checks: AlertCheck[];
  facts: SecurityFacts;
}

function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function timeOf(visit: VisitRecord): number {
  return visit.date ? Date.parse(visit.date) : NaN;
}

/**
 * Every interval, one replica (holding a lease in the store) reads the visits
 * newer than the stored watermark, looks up the new visitors' security (cached
 * for ALERT_RECHECK_AFTER), plans each subscribed channel's alerts (plan.ts) and
 * carries the plan out. A scan that fails leaves the watermark where it was, so
 * the next one retries.
 */
export class ThreatScan {
  private timer?: NodeJS.Timeout;
  private running?: Promise<ScanResults>;
  private readonly pageSize: number;
  /** The state kept before scans had an account has been moved to its account's key (once a process). */
  private adopted = false;

  constructor(private readonly options: ThreatScanOptions) {
    this.pageSize = options.pageSize ?? 1000;
  }

  /** Where each analytics account's watermark is kept. */
  async stateKeys(): Promise<string[]> {
    return (await this.options.tenants.all()).map(({ account }) => scanStateKey(account.account));
  }

  start(): void {
    this.timer = setInterval(() => {
      this.tick().catch((error: unknown) =>
        this.options.log.error({ err: String(error) }, 'threat scan tick failed; the next tick retries'),
      );
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
    await this.options.leases.release(SCAN_LEASE_KEY, this.options.owner).catch(() => undefined);
  }

  /** One tick: if this replica holds the lease, scan (never two scans at once here). */
  async tick(): Promise<ScanResults> {
    if (this.running) return this.running;
    this.running = (async () => {
      const { leases, owner, intervalMs, log } = this.options;
      const ttl = intervalMs * 3;
      const leased = await leases.acquire(SCAN_LEASE_KEY, owner, ttl);
      if (!leased)
        return {
          status: 'not-leader',
          visits: 0,
          visitors: 0,
          lookups: 0,
          alerts: 0,
          sightings: 0,
          accounts: [],
        } satisfies ScanResults;
      // Renewed while the scan runs, however long it takes, so no other replica scans the same visits.
      const renewal = setInterval(() => {
        leases.acquire(SCAN_LEASE_KEY, owner, ttl).then(
          (kept) => kept || log.error({ owner }, "the threat scan's lease was lost during a scan"),
          (error: unknown) => log.warn({ err: String(error) }, "could not renew the threat scan's lease; trying again"),
        );
      }, ttl / 3);
      try {
        return await this.scan();
      } finally {
        clearInterval(renewal);
      }
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * Scans each analytics account in turn: its visits, for the subscriptions of its workspaces
   * (every subscription when one account serves every workspace). One account's failure is
   * recorded under its key and the others are scanned all the same.
   */
  async scan(): Promise<ScanResults> {
    const total: ScanResults = {
      status: 'no-subscriptions',
      visits: 0,
      visitors: 0,
      lookups: 0,
      alerts: 0,
      sightings: 0,
      accounts: [],
    };
    for (const { account, teams } of await this.options.tenants.all()) {
      let result: ScanResult;
      try {
        result = await this.scanAccount(account, teams);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.options.log.error({ account: account.account, err: message }, 'threat scan of an account failed');
        await this.options.repos.scanState
          .saveError(scanStateKey(account.account), message, this.options.now())
          .catch(() => undefined);
        result = { status: 'failed', visits: 0, visitors: 0, lookups: 0, alerts: 0, sightings: 0, error: message };
      }
      total.accounts.push({ account: account.account, ...result });
      for (const key of ['visits', 'visitors', 'lookups', 'alerts', 'sightings'] as const) total[key] += result[key];
      if (result.status === 'failed') {
        total.status = 'failed';
        total.error ??= result.error;
      } else if (result.status === 'scanned' && total.status !== 'failed') total.status = 'scanned';
    }
    return total;
  }

  private async scanAccount(account: ScannedAccount, teams: string[] | undefined): Promise<ScanResult> {
    const { repos, log: parent } = this.options;
    const { api } = account;
    const stateKey = scanStateKey(account.account);
    const log = parent.child({ account: account.account });
    const result: ScanResult = { status: 'scanned', visits: 0, visitors: 0, lookups: 0, alerts: 0, sightings: 0 };
    if (teams?.length === 0) return { ...result, status: 'no-subscriptions' };
    const subscriptions = await repos.subscriptions.list(teams);
    if (subscriptions.length === 0) return { ...result, status: 'no-subscriptions' };
    const now = this.options.now();
    // Only one workspace's account can have kept the state from before scans had an account.
    if (!this.adopted && teams === undefined) {
      await repos.scanState.adopt(LEGACY_SCAN_STATE_KEY, stateKey);
      this.adopted = true;
    }
    const state = await repos.scanState.get(stateKey);
    const watermark = state?.watermark ?? new Date(now.getTime() - this.options.intervalMs);
    const plans: { subscription: AlertSubscription; decisions: Decision[] }[] = [];
    try {
      const fresh = await this.newVisits(api, watermark, new Set(state?.seenIds ?? []), now);
      result.visits = fresh.length;
      if (fresh.length > 0) {
        const byVisitor = new Map<string, VisitRecord[]>();
        for (const visit of fresh) {
          if (!visit.visitor_id) continue;
          const list = byVisitor.get(visit.visitor_id) ?? [];
          list.push(visit);
          byVisitor.set(visit.visitor_id, list);
        }
        for (const list of byVisitor.values()) list.sort((a, b) => timeOf(a) - timeOf(b));
        result.visitors = byVisitor.size;
        const checks = [...new Set(subscriptions.flatMap((s) => s.checks))];
        const { facts, lookups } = await this.factsFor(api, [...byVisitor.keys()], checks, now);
        result.lookups = lookups;
        for (const subscription of subscriptions) {
          const ids = [...byVisitor.keys()];
          plans.push({
            subscription,
            decisions: planChannel({
              subscription,
              visits: byVisitor,
              facts,
              existing: await repos.alerts.getMany(subscription.teamId, subscription.channelId, ids),
              muted: new Set(
                (await repos.mutes.activeFor(subscription.teamId, subscription.channelId, ids, now)).keys(),
              ),
              verdict: this.options.verdict,
            }),
          });
        }
      }
      const { watermark: next, seenIds } = advance(watermark, state?.seenIds ?? [], fresh);
      // The decisions and the watermark move together: a scan cut short leaves neither.
      await this.options.db.transaction(async (tx) => {
        for (const { subscription, decisions } of plans) {
          const counts = await this.writeChannel(tx, subscription, decisions, now);
          result.alerts += counts.alerts;
          result.sightings += counts.sightings;
        }
        await new ScanStateRepo(tx).saveProgress(stateKey, {
          watermark: next,
          seenIds,
          counts: {
            visits: result.visits,
            visitors: result.visitors,
            lookups: result.lookups,
            alerts: result.alerts,
            sightings: result.sightings,
          },
          at: now,
        });
      });
      if (result.alerts + result.sightings > 0) {
        log.info({ alerts: result.alerts, sightings: result.sightings }, 'threat alerts queued');
        this.options.queued?.();
      }
      return result;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log.error(
        { err: message, watermark: watermark.toISOString() },
        'threat scan failed; the next one retries from the same watermark',
      );
      await repos.scanState.saveError(stateKey, message, now);
      return { ...result, alerts: 0, sightings: 0, status: 'failed', error: message };
    }
  }

  /** Visits newer than the watermark, newest first, paging back until the watermark (ids at it de-duplicated). */
  private async newVisits(
    api: AnalyticsApi,
    watermark: Date,
    seenAtWatermark: Set<string>,
    now: Date,
  ): Promise<VisitRecord[]> {
    const startDate = dayOf(watermark);
    const endDate = dayOf(new Date(now.getTime() + 86_400_000));
    const fresh = new Map<string, VisitRecord>();
    for (let page = 1; ; page++) {
      const rows = await api.visits({
        startDate,
        endDate,
        page,
        limit: this.pageSize,
        sort: { key: 'created', value: -1 },
      });
      let reachedOld = false;
      for (const visit of rows) {
        const t = timeOf(visit);
        if (!visit.id || Number.isNaN(t)) continue;
        if (t < watermark.getTime()) {
          reachedOld = true;
          break;
        }
        if (t === watermark.getTime() && seenAtWatermark.has(visit.id)) continue;
        fresh.set(visit.id, visit);
      }
      if (reachedOld || rows.length < this.pageSize) break;
    }
    return [...fresh.values()];
  }

  /**
   * Looks up at most `max` of these visitors not judged yet, with the checks the workspace's
   * alerts ask for, and keeps their facts as a scan would (for watch explanations: a bounded
   * sample of a period's unjudged visitors). The sample is the same for the same visitors
   * (ordered by a hash of their id). Returns how many were looked up; none while the scan is off.
   */
  async judgeSample(
    tenant: ScannedAccount & { team: string },
    visitorIds: readonly string[],
    max: number,
  ): Promise<number> {
    const subscriptions = await this.options.repos.subscriptions.list([tenant.team]);
    if (subscriptions.length === 0 || max <= 0) return 0;
    const checks = [...new Set(subscriptions.flatMap((s) => s.checks))];
    const now = this.options.now();
    const known = await this.options.repos.visitorChecks.getFresh(
      tenant.account,
      visitorIds,
      new Date(now.getTime() - this.options.recheckMs),
    );
    const sample = visitorIds
      .filter((id) => !known.has(id))
      .map((id) => [createHash('sha1').update(id).digest('hex'), id] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, max)
      .map(([, id]) => id);
    if (sample.length === 0) return 0;
    await this.factsFor(tenant.api, sample, checks, now);
    return sample.length;
  }

  /** Each visitor's facts for the checks asked: cached ones, else looked up. A failed lookup fails the scan (after caching the rest). */
  private async factsFor(
    api: AnalyticsApi,
    visitorIds: string[],
    checks: AlertCheck[],
    now: Date,
  ): Promise<{ facts: Map<string, SecurityFacts>; lookups: number }> {
    const { repos } = this.options;
    const cached = await repos.visitorChecks.getFresh(
      api.account,
      visitorIds,
      new Date(now.getTime() - this.options.recheckMs),
    );
    const facts = new Map<string, SecurityFacts>();
    const missing: string[] = [];
    for (const id of visitorIds) {
      const entry = cached.get(id)?.facts as CachedFacts | undefined;
      if (entry && checks.every((c) => entry.checks.includes(c))) facts.set(id, entry.facts);
      else missing.push(id);
    }
    const limit = pLimit(this.options.concurrency ?? 16);
    let lookups = 0;
    let failure: ApiError | undefined;
    const fetched: { visitorId: string; facts: CachedFacts; checkedAt: Date }[] = [];
    await Promise.all(
      missing.map((visitorId) =>
        limit(async () => {
          if (failure) return;
          const parts: { [K in SecurityCheck]?: Part<SecurityAnswers[K]> } = {};
          await Promise.all(
            checks.map(async (check) => {
              lookups++;
              try {
                (parts as Record<string, Part<unknown>>)[check] = {
                  ok: true,
                  value: await api.security.check(check, visitorId),
                };
              } catch (error) {
                if (!(error instanceof ApiError)) throw error;
                // An unknown visitor is an answer (nothing known); anything else means try again later.
                if (error.kind !== 'not_found' && error.kind !== 'bad_request') failure ??= error;
                (parts as Record<string, Part<unknown>>)[check] = { ok: false, error };
              }
            }),
          );
          if (failure) return;
          // Checks not asked are absent (securityFacts leaves them out).
          const visitorFacts = securityFacts(parts);
          facts.set(visitorId, visitorFacts);
          fetched.push({ visitorId, facts: { checks, facts: visitorFacts }, checkedAt: now });
        }),
      ),
    );
    if (fetched.length > 0)
      await repos.visitorChecks.save(
        api.account,
        fetched.map((f) => ({ visitorId: f.visitorId, facts: f.facts, checkedAt: f.checkedAt })),
      );
    if (failure) throw failure;
    return { facts, lookups };
  }

  private view(alert: AlertRecord, now: Date, extra: { raised?: boolean; mutedUntil?: Date | null } = {}): AlertView {
    return alertViewOf(alert, { timeZone: this.options.timeZone, now, ...extra });
  }

  /**
   * One channel's plan, written to the store: alert rows and the deliveries that announce
   * them, in the scan's transaction. Nothing here waits on Slack.
   */
  private async writeChannel(
    tx: Queryable,
    subscription: AlertSubscription,
    decisions: readonly Decision[],
    now: Date,
  ): Promise<{ alerts: number; sightings: number }> {
    const alerts = new AlertRepo(tx);
    const outbox = new DeliveryRepo(tx);
    const { teamId: team, channelId: channel } = subscription;
    const expiresInMs = this.options.deliveryDeadlineMs;
    const counts = { alerts: 0, sightings: 0 };
    const fresh: NewAlert[] = [];
    for (const decision of decisions) {
      if (decision.kind === 'new') {
        fresh.push(decision);
      } else if (decision.kind === 'raise') {
        const { visitorId, severity, verdict, reasons, last } = decision;
        const raised = await alerts.raise(team, channel, visitorId, {
          severity,
          verdict,
          reasons,
          visit: last,
          lastSeen: new Date(timeOf(last)),
        });
        if (!raised) continue;
        const id = await outbox.enqueue({
          subject: ALERT,
          payload: { visitorId },
          team,
          channelId: channel,
          message: alertMessage(this.view(raised, now, { raised: true })),
          expiresInMs,
        });
        await alerts.announce(team, channel, visitorId, id);
        counts.alerts++;
      } else {
        const { visitorId, visits, last } = decision;
        const updated = await alerts.recordSighting(team, channel, visitorId, {
          count: visits,
          lastSeen: new Date(timeOf(last)),
          visit: last,
        });
        if (!updated) continue;
        await outbox.enqueue({
          subject: SIGHTING,
          team,
          channelId: channel,
          message: sightingsReply(visitorId, visits, last, { timeZone: this.options.timeZone, now }),
          threadTs: decision.threadTs,
          expiresInMs,
        });
        await outbox.enqueue({
          subject: ALERT_EDIT,
          team,
          channelId: channel,
          message: alertMessage(this.view(updated, now)),
          updateTs: decision.messageTs,
          expiresInMs,
        });
        counts.sightings++;
      }
    }
    const claimed: NewAlert[] = [];
    for (const f of fresh) {
      const won = await alerts.claim({
        teamId: team,
        channelId: channel,
        visitorId: f.visitorId,
        severity: f.severity,
        verdict: f.verdict,
        reasons: f.reasons,
        visit: f.last,
        firstSeen: new Date(timeOf(f.first)),
        lastSeen: new Date(timeOf(f.last)),
        sightings: f.visits,
      });
      if (won) claimed.push(f);
    }
    counts.alerts += await this.announceNew(tx, subscription, claimed, now);
    return counts;
  }

  /**
   * The new alerts of a channel, out as its grouping says (plan.ts): a post each, or a
   * group's message (posted, or edited to its new summary) with a reply each in its thread.
   * Each alert records the delivery that announces it; how many were announced.
   */
  private async announceNew(
    tx: Queryable,
    subscription: AlertSubscription,
    claimed: readonly NewAlert[],
    now: Date,
  ): Promise<number> {
    if (claimed.length === 0) return 0;
    const alerts = new AlertRepo(tx);
    const groups = new AlertGroupRepo(tx);
    const outbox = new DeliveryRepo(tx);
    const { teamId: team, channelId: channel } = subscription;
    const expiresInMs = this.options.deliveryDeadlineMs;
    // A channel's groups are decided by one scan at a time (replicas handing the lease over).
    await groups.lock(team, channel);
    const open =
      subscription.grouping === 'grouped' ? await this.openGroup(groups, outbox, team, channel, now) : undefined;
    const plan = planDelivery(claimed, {
      grouping: subscription.grouping,
      burst: this.options.burst,
      ...(open ? { open } : {}),
    });
    const rows = await alerts.getMany(
      team,
      channel,
      plan.alerts.map((a) => a.visitorId),
    );
    const fresh = plan.alerts.map((a) => rows.get(a.visitorId)).filter((a): a is Alert => a !== undefined);
    const post = (alert: Alert, where: { threadOf?: number }, mutedUntil?: Date | null) =>
      outbox.enqueue({
        subject: ALERT,
        payload: { visitorId: alert.visitorId },
        team,
        channelId: channel,
        message: alertMessage(this.view(alert, now, mutedUntil === undefined ? {} : { mutedUntil })),
        expiresInMs,
        ...where,
      });
    const summary = (members: readonly Alert[], since: Date, openUntil?: Date) =>
      groupMessage({
        channelId: channel,
        since,
        ...(openUntil ? { openUntil } : {}),
        members: members.map((a) => ({ ...a, verdict: a.verdict as VerdictName })),
        timeZone: this.options.timeZone,
        now,
      });

    if (plan.kind === 'each') {
      for (const alert of fresh) await alerts.announce(team, channel, alert.visitorId, await post(alert, {}));
    } else if (plan.kind === 'start' && !plan.summary) {
      // A lone alert is posted as it is; it opens a group that a second one turns into a summary.
      const [alert] = fresh;
      if (!alert) return 0;
      const id = await post(alert, {});
      const group = await groups.create({
        teamId: team,
        channelId: channel,
        startedAt: now,
        endsAt: new Date(now.getTime() + GROUP_WINDOW_MS),
        deliveryId: id,
        summarised: false,
      });
      await alerts.announce(team, channel, alert.visitorId, id, { groupId: group.id });
    } else if (plan.kind === 'start') {
      const endsAt = plan.closed ? now : new Date(now.getTime() + GROUP_WINDOW_MS);
      const top = await outbox.enqueue({
        subject: ALERT_GROUP,
        team,
        channelId: channel,
        message: summary(fresh, now, plan.closed ? undefined : endsAt),
        expiresInMs,
      });
      const group = await groups.create({
        teamId: team,
        channelId: channel,
        startedAt: now,
        endsAt,
        deliveryId: top,
        summarised: true,
      });
      for (const alert of fresh)
        await alerts.announce(team, channel, alert.visitorId, await post(alert, { threadOf: top }), {
          groupId: group.id,
        });
    } else {
      const group = open!;
      const before = await alerts.inGroup(team, group.id);
      const others = before.filter((a) => !rows.has(a.visitorId));
      await outbox.enqueue({
        subject: ALERT_EDIT,
        team,
        channelId: channel,
        message: summary([...others, ...fresh], group.startedAt, group.endsAt),
        updateOf: group.deliveryId,
        expiresInMs,
      });
      if (plan.convert) {
        // The group's message was its first alert: that alert moves into the thread, as it stands now
        // (unless it was announced elsewhere since, its severity having risen).
        await groups.summarise(team, group.id);
        const mutes = new AlertMuteRepo(tx);
        for (const alert of others.filter((a) => a.deliveryId === group.deliveryId)) {
          const mute = await mutes.isMuted(team, channel, alert.visitorId, now);
          await alerts.announce(
            team,
            channel,
            alert.visitorId,
            await post(alert, { threadOf: group.deliveryId }, mute ? (mute.until ?? null) : undefined),
            { moved: true },
          );
        }
      }
      for (const alert of fresh)
        await alerts.announce(team, channel, alert.visitorId, await post(alert, { threadOf: group.deliveryId }), {
          groupId: group.id,
        });
    }
    return fresh.length;
  }

  /** The channel's group still taking alerts: its window not over and its message not given up. */
  private async openGroup(
    groups: AlertGroupRepo,
    outbox: DeliveryRepo,
    team: string,
    channel: string,
    now: Date,
  ): Promise<AlertGroup | undefined> {
    const group = await groups.latestOpen(team, channel, now);
    if (!group) return undefined;
    const top = await outbox.get(group.deliveryId);
    return top && top.status !== 'failed' ? group : undefined;
  }
}

/** The new watermark: the newest visit's time, with every id at that instant (so the next scan skips exactly those). */
export function advance(
  watermark: Date,
  seenIds: readonly string[],
  fresh: readonly VisitRecord[],
): { watermark: Date; seenIds: string[] } {
  let max = watermark.getTime();
  for (const v of fresh) max = Math.max(max, timeOf(v));
  const atMax = fresh.filter((v) => timeOf(v) === max).map((v) => v.id!);
  const ids = max === watermark.getTime() ? [...new Set([...seenIds, ...atMax])] : atMax;
  return { watermark: new Date(max), seenIds: ids };
}
