import type { VisitRecord } from '../../kernel/records.js';
import type { AnalyticsApi } from '../../platform/api/analytics.js';
import type { Logger } from '../../platform/log.js';
import type { Db, Queryable } from '../../platform/store/db.js';
import type { Account } from '../../platform/tenancy/tenants.js';
import type { SecurityLookups } from './lookups.js';
import type { ReadCounts, ScanReader } from './reader.js';
import { ScanStateRepo, scanStateKey } from './repos/scan-state.js';

export interface ScanResult {
  status: 'scanned' | 'no-subscriptions' | 'not-leader' | 'failed';
  visits: number;
  visitors: number;
  lookups: number;
  alerts: number;
  sightings: number;
  error?: string;
}

/** What the scan reads of an analytics account. */
export type ScannedAccount = Pick<Account, 'account' | 'api'>;

/** What a pass over one analytics account works with. */
export interface PassDeps {
  scanState: ScanStateRepo;
  lookups: SecurityLookups;
  reader: ScanReader | undefined;
  /** The store the reader's decisions and the watermark are written to, in one transaction. */
  db: Db;
  log: Logger;
  now: () => Date;
  /** ALERT_SCAN_INTERVAL: how far back the first scan of an account looks. */
  intervalMs: number;
  pageSize: number;
  /** Moves the state kept before scans had an account to this key (once a process; only for one account serving every workspace). */
  adoptLegacy(stateKey: string): Promise<void>;
  /** Told after a scan queued deliveries. */
  queued?: () => void;
}

function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function timeOf(visit: VisitRecord): number {
  return visit.date ? Date.parse(visit.date) : NaN;
}

/**
 * One pass over an analytics account, for the readers of its workspaces (undefined: every
 * workspace): the visits newer than its watermark, grouped by visitor, their security facts,
 * and the readers' decisions written with the new watermark. A failed pass leaves the
 * watermark where it was, so the next one retries.
 */
export async function scanAccount(
  deps: PassDeps,
  account: ScannedAccount,
  teams: string[] | undefined,
): Promise<ScanResult> {
  const { scanState, log: parent } = deps;
  const { api } = account;
  const stateKey = scanStateKey(account.account);
  const log = parent.child({ account: account.account });
  const result: ScanResult = { status: 'scanned', visits: 0, visitors: 0, lookups: 0, alerts: 0, sightings: 0 };
  if (teams?.length === 0) return { ...result, status: 'no-subscriptions' };
  const interest = await deps.reader?.interest(teams);
  if (!interest) return { ...result, status: 'no-subscriptions' };
  const now = deps.now();
  if (teams === undefined) await deps.adoptLegacy(stateKey);
  const state = await scanState.get(stateKey);
  const watermark = state?.watermark ?? new Date(now.getTime() - deps.intervalMs);
  try {
    const fresh = await newVisits(api, watermark, new Set(state?.seenIds ?? []), now, deps.pageSize);
    result.visits = fresh.length;
    let write: ((tx: Queryable) => Promise<ReadCounts>) | undefined;
    if (fresh.length > 0) {
      const visits = byVisitor(fresh);
      result.visitors = visits.size;
      const { facts, lookups } = await deps.lookups.factsFor(api, [...visits.keys()], interest.checks, now);
      result.lookups = lookups;
      write = await interest.read({ visits, facts, now });
    }
    const { watermark: next, seenIds } = advance(watermark, state?.seenIds ?? [], fresh);
    // The decisions and the watermark move together: a scan cut short leaves neither.
    await deps.db.transaction(async (tx) => {
      const counts = (await write?.(tx)) ?? { alerts: 0, sightings: 0 };
      result.alerts += counts.alerts;
      result.sightings += counts.sightings;
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
      deps.queued?.();
    }
    return result;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log.error(
      { err: message, watermark: watermark.toISOString() },
      'threat scan failed; the next one retries from the same watermark',
    );
    await scanState.saveError(stateKey, message, now);
    return { ...result, alerts: 0, sightings: 0, status: 'failed', error: message };
  }
}

/** Each visitor's visits, oldest first (visits without a visitor are left out). */
function byVisitor(visits: readonly VisitRecord[]): Map<string, VisitRecord[]> {
  const grouped = new Map<string, VisitRecord[]>();
  for (const visit of visits) {
    if (!visit.visitor_id) continue;
    const list = grouped.get(visit.visitor_id) ?? [];
    list.push(visit);
    grouped.set(visit.visitor_id, list);
  }
  for (const list of grouped.values()) list.sort((a, b) => timeOf(a) - timeOf(b));
  return grouped;
}

/** Visits newer than the watermark, newest first, paging back until the watermark (ids at it de-duplicated). */
async function newVisits(
  api: AnalyticsApi,
  watermark: Date,
  seenAtWatermark: Set<string>,
  now: Date,
  pageSize: number,
): Promise<VisitRecord[]> {
  const startDate = dayOf(watermark);
  const endDate = dayOf(new Date(now.getTime() + 86_400_000));
  const fresh = new Map<string, VisitRecord>();
  for (let page = 1; ; page++) {
    const rows = await api.visits({ startDate, endDate, page, limit: pageSize, sort: { key: 'created', value: -1 } });
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
    if (reachedOld || rows.length < pageSize) break;
  }
  return [...fresh.values()];
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
