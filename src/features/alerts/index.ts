import { logOf, type LookoutFeature } from '../../context.js';
import type { Queryable } from '../../platform/store/db.js';
import type { Prune } from '../../platform/store/housekeeping.js';
import { ALERT_SUBJECTS } from './deliveries.js';
import { alertsCommand, registerAlerts } from './listeners.js';
import { ALERTS_HELP } from './parse.js';
import { AlertReader } from './reader.js';
import { AlertRepo } from './repos/alerts.js';
import { AlertGroupRepo } from './repos/groups.js';
import { AlertMuteRepo } from './repos/mutes.js';
import { AlertSubscriptionRepo } from './repos/subscriptions.js';
import { AlertService } from './service.js';
import { alertSettings } from './settings.js';

export type { AlertService, FlaggedSeen, FlaggedVisitors } from './service.js';
export { AlertReader } from './reader.js';

declare module '../../platform/feature.js' {
  interface Provided {
    alerts: { service: AlertService };
  }
}

export interface AlertFeatureRepos {
  subscriptions: AlertSubscriptionRepo;
  mutes: AlertMuteRepo;
  alerts: AlertRepo;
  groups: AlertGroupRepo;
}

const HOUR = 3_600_000;

/** Alert groups a day after their window. */
export function alertPrunes(repos: Pick<AlertFeatureRepos, 'groups'>): Prune[] {
  return [{ name: 'alert_groups', olderThanMs: 24 * HOUR, prune: (t) => repos.groups.prune(t) }];
}

/** `/traffic alerts …`: threat alerts, from the threat scan's findings, with their buttons. */
export const alerts: LookoutFeature<
  'alerts',
  'visitor' | 'threats',
  AlertFeatureRepos,
  ReturnType<typeof alertSettings>
> = {
  name: 'alerts',
  traffic: { words: ['alerts', 'alert'], usage: 'on|off|status|mute|unmute …', help: ALERTS_HELP },
  migrations: new URL('./migrations/', import.meta.url),
  unowned: ['alerts', 'alert_mutes', 'alert_groups'],
  needs: ['visitor', 'threats'],
  get settings() {
    return alertSettings();
  },
  subjects: ALERT_SUBJECTS,
  repos: (db: Queryable) => ({
    subscriptions: new AlertSubscriptionRepo(db),
    mutes: new AlertMuteRepo(db),
    alerts: new AlertRepo(db),
    groups: new AlertGroupRepo(db),
  }),
  plug(ctx, { visitor, threats }, own, settings) {
    const { platform, verdict } = ctx;
    const repos = { ...own, deliveries: platform.repos.deliveries };
    const timeZone = ctx.settings.DEFAULT_TIMEZONE;
    const service = new AlertService({
      repos,
      scan: threats.scan,
      now: platform.now,
      timeZone,
      changed: platform.changes.changed,
      log: logOf(ctx, 'alerts'),
    });
    threats.scan.readBy(
      new AlertReader({
        repos,
        verdict,
        deliveryDeadlineMs: settings.ALERT_DELIVERY_DEADLINE,
        timeZone,
        burst: settings.ALERT_BURST,
      }),
    );
    return {
      gives: { service },
      traffic: alertsCommand(service, (team) => platform.tenants.of(team)),
      register: (routes) => registerAlerts(routes, service, visitor),
      prunes: alertPrunes(own),
    };
  },
};
