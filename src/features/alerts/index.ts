import { logOf, type LookoutFeature } from '../../context.js';
import type { Queryable } from '../../platform/store/db.js';
import type { Prune } from '../../platform/store/housekeeping.js';
import { ALERT_SUBJECTS } from './deliveries.js';
import { alertsCommand, registerAlerts } from './listeners.js';
import { ALERTS_HELP } from './parse.js';
import {
  AlertGroupRepo,
  AlertMuteRepo,
  AlertRepo,
  AlertSubscriptionRepo,
  VisitorCheckRepo,
  ScanStateRepo,
} from './repo.js';
import { AlertService } from './service.js';
import { alertSettings } from './settings.js';
import { SCAN_LEASE_KEY, ThreatScan } from './scan.js';

export type { AlertService, FlaggedSeen, FlaggedVisitors } from './service.js';
export type { ThreatScan } from './scan.js';

declare module '../../platform/feature.js' {
  interface Provided {
    alerts: { service: AlertService; scan: ThreatScan };
  }
}

export interface AlertFeatureRepos {
  subscriptions: AlertSubscriptionRepo;
  mutes: AlertMuteRepo;
  alerts: AlertRepo;
  visitorChecks: VisitorCheckRepo;
  scanState: ScanStateRepo;
  groups: AlertGroupRepo;
}

const HOUR = 3_600_000;

/** Security answers past reuse (ALERT_RECHECK_AFTER, at least an hour), and alert groups a day after their window. */
export function alertPrunes(repos: Pick<AlertFeatureRepos, 'visitorChecks' | 'groups'>, recheckMs: number): Prune[] {
  return [
    { name: 'checks', olderThanMs: Math.max(recheckMs, HOUR), prune: (t) => repos.visitorChecks.prune(t) },
    { name: 'alert_groups', olderThanMs: 24 * HOUR, prune: (t) => repos.groups.prune(t) },
  ];
}

/** `/traffic alerts …`: threat alerts, from the threat scan's scans, with their buttons. */
export const alerts: LookoutFeature<'alerts', 'visitor', AlertFeatureRepos, typeof alertSettings> = {
  name: 'alerts',
  needs: ['visitor'],
  settings: alertSettings,
  subjects: ALERT_SUBJECTS,
  repos: (db: Queryable) => ({
    subscriptions: new AlertSubscriptionRepo(db),
    mutes: new AlertMuteRepo(db),
    alerts: new AlertRepo(db),
    visitorChecks: new VisitorCheckRepo(db),
    scanState: new ScanStateRepo(db),
    groups: new AlertGroupRepo(db),
  }),
  plug(ctx, { visitor }, own, settings) {
    const { platform, verdict } = ctx;
    const repos = { ...own, deliveries: platform.repos.deliveries };
    const { now } = platform;
    const timeZone = ctx.settings.DEFAULT_TIMEZONE;
    const service = new AlertService({
      repos,
      now,
      timeZone,
      verdict,
      changed: platform.changes.changed,
      log: logOf(ctx, 'alerts'),
    });
    const scan = new ThreatScan({
      tenants: platform.tenants,
      repos,
      leases: platform.repos.leases,
      db: platform.repos.db,
      queued: platform.queued,
      deliveryDeadlineMs: settings.ALERT_DELIVERY_DEADLINE,
      log: logOf(ctx, 'threat-scan'),
      now,
      owner: platform.owner,
      verdict,
      timeZone,
      intervalMs: settings.ALERT_SCAN_INTERVAL,
      recheckMs: settings.ALERT_RECHECK_AFTER,
      burst: settings.ALERT_BURST,
    });
    platform.metrics.addProbes({
      // The account whose last scan is oldest.
      scanAgeSeconds: async () => {
        const ages: number[] = [];
        for (const key of await scan.stateKeys()) {
          const at = (await own.scanState.get(key))?.lastScanAt;
          if (at) ages.push(Math.max(0, (now().getTime() - at.getTime()) / 1000));
        }
        return ages.length > 0 ? Math.max(...ages) : undefined;
      },
      leases: () => platform.repos.leases.holders([SCAN_LEASE_KEY]),
    });
    return {
      gives: { service, scan },
      subcommands: [
        {
          words: ['alerts', 'alert'],
          run: alertsCommand(service, (team) => platform.tenants.of(team)),
          help: ALERTS_HELP,
        },
      ],
      register: (routes) => registerAlerts(routes, service, visitor),
      jobs: [scan],
      prunes: alertPrunes(own, settings.ALERT_RECHECK_AFTER),
    };
  },
};
