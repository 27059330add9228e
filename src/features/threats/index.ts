import { logOf, type LookoutFeature } from '../../context.js';
import type { Queryable } from '../../platform/store/db.js';
import type { Prune } from '../../platform/store/housekeeping.js';
import { SCAN_LEASE_KEYS } from './lease.js';
import { ScanStateRepo } from './repos/scan-state.js';
import { VisitorCheckRepo } from './repos/visitor-checks.js';
import { ThreatScan, type ThreatRepos } from './scan.js';
import { StoredVerdicts, type Verdicts } from './verdicts.js';
import { threatSettings } from './settings.js';

export type { Found, Interest, ReadCounts, ScanReader } from './reader.js';
export type { ScanCounts, ScanState } from './repos/scan-state.js';
export type { ScannedAccount, ScanResult, ScanResults, ThreatScan } from './scan.js';
export type { FlaggedOf, Verdicts } from './verdicts.js';

declare module '../../platform/feature.js' {
  interface Provided {
    threats: { scan: ThreatScan; verdicts: Verdicts };
  }
}

const HOUR = 3_600_000;

/** Security answers past reuse (ALERT_RECHECK_AFTER, at least an hour). */
export function threatPrunes(repos: Pick<ThreatRepos, 'visitorChecks'>, recheckMs: number): Prune[] {
  return [{ name: 'checks', olderThanMs: Math.max(recheckMs, HOUR), prune: (t) => repos.visitorChecks.prune(t) }];
}

/**
 * The threat scan: new visits of each analytics account, their visitors' security looked up
 * and kept (the verdicts digests and watches read), and handed to its reader (threat alerts).
 */
export const threats: LookoutFeature<'threats', never, ThreatRepos, ReturnType<typeof threatSettings>> = {
  name: 'threats',
  migrations: new URL('./migrations/', import.meta.url),
  get settings() {
    return threatSettings();
  },
  repos: (db: Queryable) => ({ visitorChecks: new VisitorCheckRepo(db), scanState: new ScanStateRepo(db) }),
  plug(ctx, _needs, repos, settings) {
    const { platform } = ctx;
    const { now } = platform;
    const scan = new ThreatScan({
      tenants: platform.tenants,
      repos,
      leases: platform.repos.leases,
      db: platform.repos.db,
      queued: platform.queued,
      log: logOf(ctx, 'threat-scan'),
      now,
      owner: platform.owner,
      intervalMs: settings.ALERT_SCAN_INTERVAL,
      recheckMs: settings.ALERT_RECHECK_AFTER,
    });
    const verdicts = new StoredVerdicts({
      visitorChecks: repos.visitorChecks,
      scanning: (team) => scan.scanning(team),
      verdict: ctx.verdict,
    });
    platform.metrics.storeGauge(
      {
        name: 'lookout_scan_lag_seconds',
        help: 'Seconds since the last successful threat scan of the analytics account scanned longest ago (absent before the first)',
      },
      async () => {
        const ages: number[] = [];
        for (const key of await scan.stateKeys()) {
          const at = (await repos.scanState.get(key))?.lastScanAt;
          if (at) ages.push(Math.max(0, (now().getTime() - at.getTime()) / 1000));
        }
        return ages.length > 0 ? [{ value: Math.max(...ages) }] : [];
      },
    );
    platform.metrics.showLeases(...SCAN_LEASE_KEYS);
    return {
      gives: { scan, verdicts },
      jobs: [scan],
      prunes: threatPrunes(repos, settings.ALERT_RECHECK_AFTER),
    };
  },
};
