import pLimit from 'p-limit';
import type { Part, SecurityAnswers, SecurityCheck, VisitRecord } from '../../kernel/records.js';
import { securityFacts, type AlertCheck, type SecurityFacts, type VerdictOptions } from '../../kernel/verdict.js';
import type { AnalyticsApi } from '../../platform/api/analytics.js';
import { ApiError } from '../../platform/api/errors.js';
import type { Logger } from '../../platform/log.js';
import type { SlackMessage } from '../../platform/slack/kit/messages.js';
import { slackReason, type SlackPoster } from '../../platform/slack/poster.js';
import type { LeaseRepo } from '../../platform/store/leases.js';
import { alertMessage, alertViewOf, burstSummary, sightingsReply, type AlertRecord, type AlertView } from './blocks.js';
import { planChannel, planDelivery, type Decision, type NewAlert } from './plan.js';
import type { AlertMuteRepo, AlertRepo, AlertSubscription, AlertSubscriptionRepo, VisitorCheckRepo, WatchStateRepo } from './repo.js';

export interface AlertRepos {
  subscriptions: AlertSubscriptionRepo;
  mutes: AlertMuteRepo;
  alerts: AlertRepo;
  visitorChecks: VisitorCheckRepo;
  watchState: WatchStateRepo;
}

export interface ThreatWatchOptions {
  api: AnalyticsApi;
  repos: AlertRepos;
  leases: LeaseRepo;
  poster: SlackPoster;
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
  /** ALERT_BURST: more new flagged visitors than this in one scan for a channel become one summary. */
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

export const WATCH_STATE_KEY = 'visits';
const LEASE_KEY = 'threat-watch';

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
export class ThreatWatcher {
  private timer?: NodeJS.Timeout;
  private running?: Promise<ScanResult>;
  private readonly pageSize: number;

  constructor(private readonly options: ThreatWatchOptions) {
    this.pageSize = options.pageSize ?? 1000;
  }

  start(): void {
    this.timer = setInterval(() => {
      this.tick().catch((error: unknown) => this.options.log.error({ err: String(error) }, 'threat scan tick failed; the next tick retries'));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
    await this.options.leases.release(LEASE_KEY, this.options.owner).catch(() => undefined);
  }

  /** One tick: if this replica holds the lease, scan (never two scans at once here). */
  async tick(): Promise<ScanResult> {
    if (this.running) return this.running;
    this.running = (async () => {
      const { leases, owner, intervalMs, log } = this.options;
      const ttl = intervalMs * 3;
      const leased = await leases.acquire(LEASE_KEY, owner, ttl);
      if (!leased) return { status: 'not-leader', visits: 0, visitors: 0, lookups: 0, alerts: 0, sightings: 0 } satisfies ScanResult;
      // Renewed while the scan runs, however long it takes, so no other replica scans the same visits.
      const renewal = setInterval(() => {
        leases.acquire(LEASE_KEY, owner, ttl).then(
          (kept) => kept || log.error({ owner }, 'the threat-watch lease was lost during a scan'),
          (error: unknown) => log.warn({ err: String(error) }, 'could not renew the threat-watch lease; trying again'),
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

  async scan(): Promise<ScanResult> {
    const { repos, log } = this.options;
    const result: ScanResult = { status: 'scanned', visits: 0, visitors: 0, lookups: 0, alerts: 0, sightings: 0 };
    const subscriptions = await repos.subscriptions.list();
    if (subscriptions.length === 0) return { ...result, status: 'no-subscriptions' };
    const now = this.options.now();
    const state = await repos.watchState.get(WATCH_STATE_KEY);
    const watermark = state?.watermark ?? new Date(now.getTime() - this.options.intervalMs);
    try {
      const fresh = await this.newVisits(watermark, new Set(state?.seenIds ?? []), now);
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
        const { facts, lookups } = await this.factsFor([...byVisitor.keys()], checks, now);
        result.lookups = lookups;
        for (const subscription of subscriptions) {
          const counts = await this.alertChannel(subscription, byVisitor, facts, now);
          result.alerts += counts.alerts;
          result.sightings += counts.sightings;
        }
      }
      const { watermark: next, seenIds } = advance(watermark, state?.seenIds ?? [], fresh);
      await repos.watchState.saveProgress(WATCH_STATE_KEY, {
        watermark: next,
        seenIds,
        counts: { visits: result.visits, visitors: result.visitors, lookups: result.lookups, alerts: result.alerts, sightings: result.sightings },
        at: now,
      });
      return result;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log.error({ err: message, watermark: watermark.toISOString() }, 'threat scan failed; the next one retries from the same watermark');
      await repos.watchState.saveError(WATCH_STATE_KEY, message, now);
      return { ...result, status: 'failed', error: message };
    }
  }

  /** Visits newer than the watermark, newest first, paging back until the watermark (ids at it de-duplicated). */
  private async newVisits(watermark: Date, seenAtWatermark: Set<string>, now: Date): Promise<VisitRecord[]> {
    const startDate = dayOf(watermark);
    const endDate = dayOf(new Date(now.getTime() + 86_400_000));
    const fresh = new Map<string, VisitRecord>();
    for (let page = 1; ; page++) {
      const rows = await this.options.api.visits({ startDate, endDate, page, limit: this.pageSize, sort: { key: 'created', value: -1 } });
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

  /** Each visitor's facts for the checks asked: cached ones, else looked up. A failed lookup fails the scan (after caching the rest). */
  private async factsFor(visitorIds: string[], checks: AlertCheck[], now: Date): Promise<{ facts: Map<string, SecurityFacts>; lookups: number }> {
    const { repos, api } = this.options;
    const cached = await repos.visitorChecks.getFresh(visitorIds, new Date(now.getTime() - this.options.recheckMs));
    const facts = new Map<string, SecurityFacts>();
    const missing: string[] = [];
    for (const id of visitorIds) {
      const entry = cached.get(id)?.facts as CachedFacts | undefined;
      if (entry && checks.every((c) => entry.checks.includes(c))) facts.set(id, entry.facts);
      else missing.push(id);
    }
    const limit = pLimit(this.options.concurrency ?? 16);
    let lookups = 0;
    let failure: unknown;
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
                (parts as Record<string, Part<unknown>>)[check] = { ok: true, value: await api.security.check(check, visitorId) };
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
    if (fetched.length > 0) await repos.visitorChecks.save(fetched.map((f) => ({ visitorId: f.visitorId, facts: f.facts, checkedAt: f.checkedAt })));
    if (failure) throw failure;
    return { facts, lookups };
  }

  private view(alert: AlertRecord, now: Date, extra: { raised?: boolean } = {}): AlertView {
    return alertViewOf(alert, { timeZone: this.options.timeZone, now, ...extra });
  }

  /** One channel: plan, then carry the plan out. */
  private async alertChannel(
    subscription: AlertSubscription,
    byVisitor: Map<string, VisitRecord[]>,
    facts: Map<string, SecurityFacts>,
    now: Date,
  ): Promise<{ alerts: number; sightings: number }> {
    const { repos } = this.options;
    const channel = subscription.channelId;
    const ids = [...byVisitor.keys()];
    const decisions = planChannel({
      subscription,
      visits: byVisitor,
      facts,
      existing: await repos.alerts.getMany(channel, ids),
      muted: new Set((await repos.mutes.activeFor(channel, ids, now)).keys()),
      verdict: this.options.verdict,
    });
    let alerts = 0;
    let sightings = 0;
    const fresh: NewAlert[] = [];
    for (const decision of decisions) {
      if (decision.kind === 'new') fresh.push(decision);
      else if (decision.kind === 'raise') alerts += await this.raise(channel, decision, now);
      else sightings += await this.sighting(channel, decision, now);
    }
    alerts += await this.announce(channel, fresh, now);
    return { alerts, sightings };
  }

  private async raise(channel: string, decision: Extract<Decision, { kind: 'raise' }>, now: Date): Promise<number> {
    const { alerts } = this.options.repos;
    const { visitorId, severity, verdict, reasons, last } = decision;
    const raised = await alerts.raise(channel, visitorId, { severity, verdict, reasons, visit: last, lastSeen: new Date(timeOf(last)) });
    if (!raised) return 0;
    const ts = await this.post(channel, alertMessage(this.view(raised, now, { raised: true })));
    if (ts) await alerts.setPosted(channel, visitorId, ts, ts);
    return 1;
  }

  private async sighting(channel: string, decision: Extract<Decision, { kind: 'sighting' }>, now: Date): Promise<number> {
    const { visitorId, visits, last } = decision;
    const updated = await this.options.repos.alerts.recordSighting(channel, visitorId, { count: visits, lastSeen: new Date(timeOf(last)), visit: last });
    await this.post(channel, sightingsReply(visits, last, { timeZone: this.options.timeZone, now }), decision.threadTs);
    if (updated?.messageTs) await this.update(channel, updated.messageTs, alertMessage(this.view(updated, now)));
    return 1;
  }

  /** Claims each new alert first (exactly once per channel and visitor, across replicas), then posts what it claimed. */
  private async announce(channel: string, fresh: readonly NewAlert[], now: Date): Promise<number> {
    const { alerts } = this.options.repos;
    const claimed: NewAlert[] = [];
    for (const f of fresh) {
      const won = await alerts.claim({ channelId: channel, visitorId: f.visitorId, severity: f.severity, verdict: f.verdict, reasons: f.reasons, visit: f.last, firstSeen: new Date(timeOf(f.first)), lastSeen: new Date(timeOf(f.last)) });
      if (won) claimed.push(f);
    }
    const plan = planDelivery(claimed, this.options.burst);
    let thread: string | undefined;
    if (plan.summary) {
      thread = await this.post(channel, burstSummary(plan.alerts, { timeZone: this.options.timeZone, now }));
      if (!thread) {
        for (const c of plan.alerts) await alerts.forget(channel, c.visitorId);
        return 0;
      }
    }
    let posted = 0;
    for (const c of plan.alerts) {
      const alert = await alerts.get(channel, c.visitorId);
      if (!alert) continue;
      const ts = await this.post(channel, alertMessage(this.view({ ...alert, sightings: c.visits }, now)), thread);
      if (!ts) {
        await alerts.forget(channel, c.visitorId);
        continue;
      }
      await alerts.setPosted(channel, c.visitorId, ts, thread ?? ts);
      if (c.visits > 1) await alerts.recordSighting(channel, c.visitorId, { count: c.visits - 1, lastSeen: alert.lastSeen, visit: alert.visit });
      posted++;
    }
    if (posted > 0) this.options.log.info({ channel, alerts: posted, burst: thread !== undefined }, 'threat alerts posted');
    return posted;
  }

  /** Posts (the Web API client waits out 429s); undefined when Slack refused, which is logged. */
  private async post(channel: string, message: SlackMessage, threadTs?: string): Promise<string | undefined> {
    try {
      return await this.options.poster.post(channel, message, { threadTs });
    } catch (error) {
      this.options.log.error({ channel, err: slackReason(error) }, 'could not post a threat alert');
      return undefined;
    }
  }

  private async update(channel: string, ts: string, message: SlackMessage): Promise<void> {
    try {
      await this.options.poster.update(channel, ts, message);
    } catch (error) {
      this.options.log.warn({ channel, ts, err: slackReason(error) }, 'could not update a threat alert');
    }
  }
}

/** The new watermark: the newest visit's time, with every id at that instant (so the next scan skips exactly those). */
export function advance(watermark: Date, seenIds: readonly string[], fresh: readonly VisitRecord[]): { watermark: Date; seenIds: string[] } {
  let max = watermark.getTime();
  for (const v of fresh) max = Math.max(max, timeOf(v));
  const atMax = fresh.filter((v) => timeOf(v) === max).map((v) => v.id!);
  const ids = max === watermark.getTime() ? [...new Set([...seenIds, ...atMax])] : atMax;
  return { watermark: new Date(max), seenIds: ids };
}
