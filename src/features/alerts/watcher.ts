import type { WebClient } from '@slack/web-api';
import pLimit from 'p-limit';
import type { AnalyticsApi } from '../../platform/api/analytics.js';
import { ApiError } from '../../platform/api/errors.js';
import type { VisitRecord } from '../../platform/api/schemas.js';
import { securityFacts, type Part } from '../visitor/profile.js';
import { SECURITY_CHECKS, type SecurityAnswers, type SecurityCheck } from '../../platform/api/security.js';
import { atLeast, judge, onlyChecks, severityRank, type SecurityFacts, type Severity, type VerdictOptions } from '../../kernel/verdict.js';
import type { Logger } from '../../platform/log.js';
import { alertMessage, alertViewOf, burstSummary, sightingsReply, type AlertRecord, type AlertView } from './blocks.js';
import type { AlertSubscription, CheckName } from './repo.js';
import type { Store } from '../../platform/store/index.js';

export interface ThreatWatchOptions {
  api: AnalyticsApi;
  store: Store;
  slack: () => WebClient;
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

const STATE_KEY = 'visits';
const LEASE_KEY = 'threat-watch';
const CHECK_OF: Record<CheckName, SecurityCheck> = { bot: 'bot', scraping: 'scraping', vpn: 'vpn', extensions: 'extensions' };

interface CachedFacts {
  checks: CheckName[];
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
 * for ALERT_RECHECK_AFTER), and alerts each subscribed channel once per visitor.
 * A scan that fails leaves the watermark where it was, so the next one retries.
 */
export class ThreatWatcher {
  private timer?: NodeJS.Timeout;
  private running?: Promise<ScanResult>;
  private readonly pageSize: number;

  constructor(private readonly options: ThreatWatchOptions) {
    this.pageSize = options.pageSize ?? 1000;
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
    await this.options.store.leases.release(LEASE_KEY, this.options.owner).catch(() => undefined);
  }

  /** One tick: if this replica holds the lease, scan (never two scans at once here). */
  async tick(): Promise<ScanResult> {
    if (this.running) return this.running;
    this.running = (async () => {
      const leased = await this.options.store.leases.acquire(LEASE_KEY, this.options.owner, this.options.intervalMs * 3);
      if (!leased) return { status: 'not-leader', visits: 0, visitors: 0, lookups: 0, alerts: 0, sightings: 0 } satisfies ScanResult;
      return this.scan();
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  async scan(): Promise<ScanResult> {
    const { store, log } = this.options;
    const result: ScanResult = { status: 'scanned', visits: 0, visitors: 0, lookups: 0, alerts: 0, sightings: 0 };
    const subscriptions = await store.alertSubscriptions.list();
    if (subscriptions.length === 0) return { ...result, status: 'no-subscriptions' };
    const now = this.options.now();
    const state = await store.watchState.get(STATE_KEY);
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
      await store.watchState.saveProgress(STATE_KEY, {
        watermark: next,
        seenIds,
        counts: { visits: result.visits, visitors: result.visitors, lookups: result.lookups, alerts: result.alerts, sightings: result.sightings },
        at: now,
      });
      return result;
    } catch (error) {
      const message = error instanceof ApiError ? error.message : error instanceof Error ? error.message : String(error);
      log.error({ err: message, watermark: watermark.toISOString() }, 'threat scan failed; the next one retries from the same watermark');
      await store.watchState.saveError(STATE_KEY, message, now);
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
  private async factsFor(visitorIds: string[], checks: CheckName[], now: Date): Promise<{ facts: Map<string, SecurityFacts>; lookups: number }> {
    const { store, api } = this.options;
    const cached = await store.visitorChecks.getFresh(visitorIds, new Date(now.getTime() - this.options.recheckMs));
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
          const parts = {} as { [K in SecurityCheck]: Part<SecurityAnswers[K]> };
          await Promise.all(
            checks.map(async (check) => {
              lookups++;
              try {
                (parts as Record<string, Part<unknown>>)[check] = { ok: true, value: await api.security.check(CHECK_OF[check], visitorId) };
              } catch (error) {
                if (!(error instanceof ApiError)) throw error;
                // An unknown visitor is an answer (nothing known); anything else means try again later.
                if (error.kind !== 'not_found' && error.kind !== 'bad_request') failure ??= error;
                (parts as Record<string, Part<unknown>>)[check] = { ok: false, error };
              }
            }),
          );
          if (failure) return;
          // Checks not asked count as unavailable; onlyChecks then leaves them out.
          const notAsked = { ok: false as const, error: new ApiError('not_found', 'not asked', { path: '' }) };
          const all = Object.fromEntries(SECURITY_CHECKS.map((c) => [c, (parts as Partial<Record<SecurityCheck, Part<unknown>>>)[c] ?? notAsked])) as {
            [K in SecurityCheck]: Part<SecurityAnswers[K]>;
          };
          const visitorFacts = onlyChecks(securityFacts({ security: all }), checks);
          facts.set(visitorId, visitorFacts);
          fetched.push({ visitorId, facts: { checks, facts: visitorFacts }, checkedAt: now });
        }),
      ),
    );
    if (fetched.length > 0) await store.visitorChecks.save(fetched.map((f) => ({ visitorId: f.visitorId, facts: f.facts, checkedAt: f.checkedAt })));
    if (failure) throw failure;
    return { facts, lookups };
  }

  private view(alert: AlertRecord, now: Date, extra: { raised?: boolean } = {}): AlertView {
    return alertViewOf(alert, { timeZone: this.options.timeZone, now, ...extra });
  }

  /** One channel: new alerts (or a burst summary), sightings in threads, re-announcements when the severity rises. */
  private async alertChannel(
    subscription: AlertSubscription,
    byVisitor: Map<string, VisitRecord[]>,
    facts: Map<string, SecurityFacts>,
    now: Date,
  ): Promise<{ alerts: number; sightings: number }> {
    const { store, log } = this.options;
    const channel = subscription.channelId;
    const ids = [...byVisitor.keys()];
    const muted = await store.alertMutes.activeFor(channel, ids, now);
    const existing = await store.alerts.getMany(channel, ids);
    const fresh: { visitorId: string; severity: Severity; verdict: string; reasons: string[]; visits: VisitRecord[] }[] = [];
    let sightings = 0;
    let alerts = 0;

    for (const [visitorId, visits] of byVisitor) {
      if (muted.has(visitorId)) continue;
      const verdict = judge(onlyChecks(facts.get(visitorId) ?? {}, subscription.checks), this.options.verdict);
      const before = existing.get(visitorId);
      const last = visits[visits.length - 1]!;
      if (before && before.messageTs) {
        if (verdict.severity && severityRank(verdict.severity) > severityRank(before.severity)) {
          const raised = await store.alerts.raise(channel, visitorId, { severity: verdict.severity, verdict: verdict.name, reasons: verdict.reasons.map((r) => r.text), visit: last, lastSeen: new Date(timeOf(last)) });
          if (raised) {
            const posted = await this.post(channel, alertMessage(this.view(raised, now, { raised: true })));
            if (posted) await store.alerts.setPosted(channel, visitorId, posted, posted);
            alerts++;
          }
        } else {
          const updated = await store.alerts.recordSighting(channel, visitorId, { count: visits.length, lastSeen: new Date(timeOf(last)), visit: last });
          await this.post(channel, sightingsReply(visits.length, last, { timeZone: this.options.timeZone, now }), before.threadTs ?? before.messageTs);
          if (updated?.messageTs) await this.update(channel, updated.messageTs, alertMessage(this.view(updated, now)));
          sightings++;
        }
        continue;
      }
      if (!verdict.severity || !atLeast(verdict.severity, subscription.minSeverity)) continue;
      fresh.push({ visitorId, severity: verdict.severity, verdict: verdict.name, reasons: verdict.reasons.map((r) => r.text), visits });
    }

    // Claim each new alert first (exactly once per channel and visitor, across replicas), then post.
    const claimed: typeof fresh = [];
    for (const f of fresh) {
      const first = f.visits[0]!;
      const last = f.visits[f.visits.length - 1]!;
      const ok = await store.alerts.claim({ channelId: channel, visitorId: f.visitorId, severity: f.severity, verdict: f.verdict, reasons: f.reasons, visit: last, firstSeen: new Date(timeOf(first)), lastSeen: new Date(timeOf(last)) });
      if (ok) claimed.push(f);
    }
    claimed.sort((a, b) => severityRank(b.severity) - severityRank(a.severity));
    let thread: string | undefined;
    if (claimed.length > this.options.burst) {
      thread = await this.post(channel, burstSummary(claimed.map((c) => ({ visitorId: c.visitorId, severity: c.severity, verdict: c.verdict as AlertView['verdict'], reasons: c.reasons })), { timeZone: this.options.timeZone, now }));
      if (!thread) {
        for (const c of claimed) await store.alerts.forget(channel, c.visitorId);
        return { alerts, sightings };
      }
    }
    for (const c of claimed) {
      const alert = await store.alerts.get(channel, c.visitorId);
      if (!alert) continue;
      const ts = await this.post(channel, alertMessage(this.view({ ...alert, sightings: c.visits.length }, now)), thread);
      if (!ts) {
        await store.alerts.forget(channel, c.visitorId);
        continue;
      }
      await store.alerts.setPosted(channel, c.visitorId, ts, thread ?? ts);
      if (c.visits.length > 1) await store.alerts.recordSighting(channel, c.visitorId, { count: c.visits.length - 1, lastSeen: alert.lastSeen, visit: alert.visit });
      alerts++;
    }
    if (alerts > 0) log.info({ channel, alerts, burst: thread !== undefined }, 'threat alerts posted');
    return { alerts, sightings };
  }

  /** Posts (the Web API client waits out 429s); undefined when Slack refused, which is logged. */
  private async post(channel: string, message: { text: string; blocks: unknown[] }, threadTs?: string): Promise<string | undefined> {
    try {
      const result = await this.options.slack().chat.postMessage({ channel, text: message.text, blocks: message.blocks as never, ...(threadTs ? { thread_ts: threadTs } : {}), unfurl_links: false, unfurl_media: false });
      return result.ts;
    } catch (error) {
      this.options.log.error({ channel, err: (error as { data?: { error?: string } }).data?.error ?? String(error) }, 'could not post a threat alert');
      return undefined;
    }
  }

  private async update(channel: string, ts: string, message: { text: string; blocks: unknown[] }): Promise<void> {
    try {
      await this.options.slack().chat.update({ channel, ts, text: message.text, blocks: message.blocks as never });
    } catch (error) {
      this.options.log.warn({ channel, ts, err: (error as { data?: { error?: string } }).data?.error ?? String(error) }, 'could not update a threat alert');
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
